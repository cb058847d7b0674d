"""PyTorch state for Checkpointer: the state_dict() of each object (model, optimizer, scheduler,
GradScaler...) in one torch.save file. PyTorch is imported only when a function is called.

    save, load = torch_save_load(model=model, optimizer=optimizer)
    ckpt = Checkpointer(save=save, load=load)

The Checkpointer gives save() a temporary path and renames it into place after it is written
and synced, so a crash in the middle of torch.save leaves the previous checkpoint whole.
"""


def _torch():
    try:
        import torch
    except ImportError as e:
        raise ImportError("squeeze_checkpoint.pytorch needs PyTorch (pip install torch); "
                          "without it, use Checkpointer(save=..., load=...)") from e
    return torch


def torch_save_load(map_location="cpu", **objects):
    """(save, load) for Checkpointer: save(path) torch.save()s {name: obj.state_dict()} to
    path; load(path) loads it (to `map_location`) and calls obj.load_state_dict() on each.
    Every object needs state_dict() and load_state_dict()."""
    if not objects:
        raise ValueError("name the objects to save: torch_save_load(model=model, optimizer=opt)")
    for name, obj in objects.items():
        if not (hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict")):
            raise TypeError(f"{name}: {type(obj).__name__} has no state_dict()/load_state_dict()")

    def save(path):
        torch = _torch()
        with open(path, "wb") as f:
            torch.save({name: obj.state_dict() for name, obj in objects.items()}, f)

    def load(path):
        torch = _torch()
        with open(path, "rb") as f:
            saved = torch.load(f, map_location=map_location)
        missing = [name for name in objects if name not in saved]
        if missing:
            raise KeyError(f"the checkpoint has no {', '.join(missing)} (it has "
                           f"{', '.join(sorted(saved))})")
        for name, obj in objects.items():
            obj.load_state_dict(saved[name])

    return save, load
