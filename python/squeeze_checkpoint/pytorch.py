"""PyTorch state for Checkpointer: the state_dict() of each object (model, optimizer, scheduler,
GradScaler...) in one torch.save file, with the random number generators' states (PyTorch's
CPU and CUDA generators, Python's `random`, NumPy's global one where NumPy is installed), so
dropout, shuffling and augmentation resume where they were. PyTorch is imported only when a
function is called.

    save, load = torch_save_load(model=model, optimizer=optimizer)
    ckpt = Checkpointer(save=save, load=load)

The Checkpointer gives save() a temporary path and renames it into place after it is written
and synced, so a crash in the middle of torch.save leaves the previous checkpoint whole. The
save has the two steps asynchronous checkpoints need: save.capture() copies every state_dict
to CPU memory, save.write(snapshot, path) torch.saves the copy.

ResumableSampler (squeeze_checkpoint.sampler) is a data loader's position that a checkpoint
keeps; TorchDistributed (squeeze_checkpoint.distributed) lets the ranks of a torch.distributed
job checkpoint together.

A checkpoint loads at any world size (an elastic job that squeeze resized): a model wrapped in
DistributedDataParallel or DataParallel is saved as the model inside, and loads into a wrapped
model or a bare one (a wrapped model's `module.` keys of an older checkpoint too); the CUDA
generators are restored on the devices this run has, as many as both runs have.
"""

import copy

from .distributed import TorchDistributed  # noqa: F401 - re-exported
from .sampler import ResumableSampler  # noqa: F401 - re-exported


def _torch():
    try:
        import torch
    except ImportError as e:
        raise ImportError("squeeze_checkpoint.pytorch needs PyTorch (pip install torch); "
                          "without it, use Checkpointer(save=..., load=...)") from e
    return torch


RNG_KEY = "squeeze_rng"


def rng_state(torch):
    """The states of every random number generator a training step may draw from."""
    import random
    state = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    try:
        import numpy
        state["numpy"] = numpy.random.get_state()
    except ImportError:
        pass
    return state


def set_rng_state(torch, state):
    import random
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        # Another world size may give this run fewer (or more) GPUs than the saving run had.
        for device, cuda_state in enumerate(state["cuda"][:torch.cuda.device_count()]):
            torch.cuda.set_rng_state(cuda_state, device)
    if "numpy" in state:
        import numpy
        numpy.random.set_state(state["numpy"])


def torch_save_load(map_location="cpu", rng=True, **objects):
    """(save, load) for Checkpointer: save(path) torch.save()s {name: obj.state_dict()} to
    path; load(path) loads it (to `map_location`) and calls obj.load_state_dict() on each.
    Every object needs state_dict() and load_state_dict(). With `rng` (the default) the
    generators' states are saved too and restored by load (a checkpoint saved without them
    restores none)."""
    if not objects:
        raise ValueError("name the objects to save: torch_save_load(model=model, optimizer=opt)")
    if RNG_KEY in objects:
        raise ValueError(f"{RNG_KEY}: the name is taken by the generators' states; rename it")
    for name, obj in objects.items():
        if not (hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict")):
            raise TypeError(f"{name}: {type(obj).__name__} has no state_dict()/load_state_dict()")

    def capture():
        torch = _torch()
        state = {name: cpu_copy(torch, unwrapped(torch, obj).state_dict())
                 for name, obj in objects.items()}
        if rng:
            state[RNG_KEY] = cpu_copy(torch, rng_state(torch))
        return state

    def write(state, path):
        torch = _torch()
        with open(path, "wb") as f:
            torch.save(state, f)

    def save(path):
        write(capture(), path)

    def load(path):
        torch = _torch()
        with open(path, "rb") as f:
            saved = torch.load(f, map_location=map_location)
        missing = [name for name in objects if name not in saved]
        if missing:
            raise KeyError(f"the checkpoint has no {', '.join(missing)} (it has "
                           f"{', '.join(sorted(k for k in saved if k != RNG_KEY))})")
        for name, obj in objects.items():
            obj = unwrapped(torch, obj)
            obj.load_state_dict(without_wrapper_prefix(saved[name], obj))
        if rng and RNG_KEY in saved:
            set_rng_state(torch, saved[RNG_KEY])

    save.capture, save.write = capture, write
    return save, load


def unwrapped(torch, obj):
    """The model inside a DistributedDataParallel or DataParallel (`module`), else `obj`: its
    state_dict() is the same at every world size, wrapped or not."""
    nn = getattr(torch, "nn", None)
    wrappers = tuple(kind for kind in (getattr(getattr(nn, "parallel", None),
                                               "DistributedDataParallel", None),
                                       getattr(nn, "DataParallel", None))
                     if isinstance(kind, type))
    return obj.module if wrappers and isinstance(obj, wrappers) else obj


PREFIX = "module."


def without_wrapper_prefix(state, obj):
    """A model's state_dict saved from inside a wrapper by an older helper (every key
    `module.`...), for a model whose own keys have no such prefix: the keys without it."""
    if not isinstance(state, dict) or not state or not callable(getattr(obj, "named_modules",
                                                                         None)):
        return state
    if not all(isinstance(k, str) and k.startswith(PREFIX) for k in state):
        return state
    if any(k.startswith(PREFIX) for k in obj.state_dict()):
        return state
    stripped = type(state)((k[len(PREFIX):], v) for k, v in state.items())
    metadata = getattr(state, "_metadata", None)  # the modules' versions, keyed by their names
    if metadata is not None:
        stripped._metadata = type(metadata)(
            ("" if k == PREFIX[:-1] else k[len(PREFIX):] if k.startswith(PREFIX) else k, v)
            for k, v in metadata.items())
    return stripped


def cpu_copy(torch, value):
    """A copy of a state_dict (nested dicts, lists, tuples, tensors, plain values) that training
    cannot change any more: every tensor copied to CPU memory."""
    if torch.is_tensor(value):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        return type(value)((k, cpu_copy(torch, v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        items = [cpu_copy(torch, v) for v in value]
        return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
    return copy.deepcopy(value)
