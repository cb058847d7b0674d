"""A data loader's position that a checkpoint keeps: ResumableSampler gives a DataLoader the
indices of a data set, shuffled anew each epoch from a seed of its own (or in order), split
among the ranks of a distributed job, and counts the batches the training loop has taken, so a
run resumed from a checkpoint goes on with the next batch of the same epoch.

    sampler = ResumableSampler(len(dataset), seed=0)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=2,
                        generator=torch.Generator())
    save, load = torch_save_load(model=model, optimizer=optimizer, data=sampler)
    step = ckpt.resume(default=0)
    while sampler.epoch < epochs:
        for x, y in sampler.batches(loader):
            ...one step...
            step += 1
            ckpt.boundary(step)

The position counts what the loop took, not what the loader fetched: DataLoader workers fetch
batches ahead, and those are fetched again after a resume. PyTorch is imported only when the
indices are drawn.
"""

import warnings


class ResumableSampler:
    """The indices of a data set of `size` items (or a sized data set) for one rank.

    shuffle: a new order each epoch, torch.randperm with a generator seeded `seed + epoch`
    (never PyTorch's global one); False: in order. rank, world_size: each rank takes every
    world_size-th index of the epoch's order from `rank` on, the same count on every rank (the
    last size % world_size of the order are left out). `epoch` and `taken` (items of this
    rank's share the loop took in this epoch) are the position; state_dict() saves them."""

    def __init__(self, size, *, shuffle=True, seed=0, rank=0, world_size=1):
        if not isinstance(size, int):
            size = len(size)
        if size < 0:
            raise ValueError(f"size: {size} is negative")
        if world_size < 1 or not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} of world_size {world_size}: expected 0 <= rank < "
                             f"world_size")
        self.size, self.shuffle, self.seed = size, shuffle, seed
        self.rank, self.world_size = rank, world_size
        self.per_rank = size // world_size
        self.epoch = 0
        self.taken = 0
        self._warned = False

    def order(self, epoch):
        """This rank's indices of `epoch`, in the order they are given."""
        if self.shuffle:
            import torch
            generator = torch.Generator()
            generator.manual_seed(self.seed + epoch)
            order = torch.randperm(self.size, generator=generator).tolist()
        else:
            order = list(range(self.size))
        return order[self.rank:self.per_rank * self.world_size:self.world_size]

    def __iter__(self):
        return iter(self.order(self.epoch)[self.taken:])

    def __len__(self):
        return self.per_rank - self.taken

    def batches(self, loader):
        """The batches of `loader` (a DataLoader made with this sampler) for the rest of the
        epoch. Each batch counts as taken when the loop gets it (a checkpoint at the next
        boundary resumes after it); when the epoch's batches are done, the next epoch begins."""
        if getattr(loader, "sampler", None) is not self and \
                getattr(getattr(loader, "batch_sampler", None), "sampler", None) is not self:
            raise ValueError("batches(loader): the loader was not made with this sampler "
                             "(DataLoader(dataset, sampler=this_sampler, ...))")
        size = getattr(loader, "batch_size", None)
        if not size:
            raise ValueError("batches(loader): the loader has no batch_size (a batch_sampler "
                             "of its own cannot be resumed by this sampler)")
        if getattr(loader, "generator", None) is None and not self._warned:
            self._warned = True
            warnings.warn("the DataLoader has no generator of its own: each new iterator draws "
                          "its workers' seed from PyTorch's global generator, so a resumed run "
                          "draws differently after it (DataLoader(..., "
                          "generator=torch.Generator()))", stacklevel=2)
        for batch in loader:
            self.taken = min(self.taken + size, self.per_rank)
            yield batch
        self.epoch += 1
        self.taken = 0

    def state_dict(self):
        return {"epoch": self.epoch, "taken": self.taken, "size": self.size,
                "seed": self.seed, "shuffle": self.shuffle, "world_size": self.world_size}

    def load_state_dict(self, state):
        """Restores the position. ValueError when the checkpoint's data set size, seed, order
        or world size differs from this sampler's (the position would mean other items)."""
        for key in ("size", "seed", "shuffle", "world_size"):
            if key in state and state[key] != getattr(self, key):
                raise ValueError(f"the checkpoint's data position is for {key} {state[key]!r}, "
                                 f"this sampler's {key} is {getattr(self, key)!r}")
        epoch, taken = state.get("epoch"), state.get("taken")
        if not isinstance(epoch, int) or epoch < 0 or not isinstance(taken, int) or \
                not 0 <= taken <= self.per_rank:
            raise ValueError(f"the checkpoint's data position (epoch {epoch!r}, taken "
                             f"{taken!r}) is not one of {self.per_rank} items per epoch")
        self.epoch, self.taken = epoch, taken
