"""A data loader's position that a checkpoint keeps: ResumableSampler gives a DataLoader the
indices of a data set, shuffled anew each epoch from a seed of its own (or in order), split
among the ranks of a distributed job, and counts the batches the training loop has taken, so a
run resumed from a checkpoint goes on with the next batch of the same epoch, at the same world
size or another (an elastic job that squeeze resized).

    sampler = ResumableSampler(len(dataset), seed=0, rank=rank, world_size=world_size)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=2,
                        generator=torch.Generator())
    save, load = torch_save_load(model=model, optimizer=optimizer, data=sampler)
    step = ckpt.resume(default=0)
    while sampler.epoch < epochs:
        for x, y in sampler.batches(loader):
            ...one step...
            step += 1
            ckpt.boundary(step)

The position is the epoch and the items of the epoch's order that all ranks together took
(`consumed`), which does not depend on the world size: a run resumed with another one goes on
with the next items of the same order, split among its ranks. It counts what the loop took,
not what the loader fetched: DataLoader workers fetch batches ahead, and those are fetched
again after a resume. PyTorch is imported only when the indices are drawn.
"""

import warnings


class ResumableSampler:
    """The indices of a data set of `size` items (or a sized data set) for one rank.

    shuffle: a new order each epoch, torch.randperm with a generator seeded `seed + epoch`
    (never PyTorch's global one; the same order at every world size); False: in order. rank,
    world_size: the rest of the epoch's order (from `consumed` on) is dealt out in turn, each
    rank taking every world_size-th item from `rank` on, the same count on every rank (the
    last few, fewer than world_size, are left out). In a step every rank takes one batch, so
    the ranks together take the next batch_size x world_size items of the order.
    `epoch` and `consumed` are the position; state_dict() saves them."""

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
        self.per_rank = size // world_size  # a rank's share of a whole epoch
        self.epoch = 0
        self._start = 0   # items of the epoch's order taken before this rank's share was dealt
        self._taken = 0   # items of this rank's share the loop took since
        self._warned = False

    @property
    def consumed(self):
        """Items of this epoch's order that the ranks together have taken."""
        return self._start + self._taken * self.world_size

    @property
    def taken(self):
        """Items per rank taken in this epoch (consumed // world_size)."""
        return self.consumed // self.world_size

    def _share(self):
        return (self.size - self._start) // self.world_size

    def global_order(self, epoch):
        """Every index of `epoch`, in the order the ranks together take them."""
        if not self.shuffle:
            return list(range(self.size))
        import torch
        generator = torch.Generator()
        generator.manual_seed(self.seed + epoch)
        return torch.randperm(self.size, generator=generator).tolist()

    def order(self, epoch):
        """This rank's indices of a whole `epoch` at this world size, in the order given."""
        return self.global_order(epoch)[self.rank:self.per_rank * self.world_size:
                                        self.world_size]

    def __iter__(self):
        rest = self.global_order(self.epoch)[self._start:]
        mine = rest[self.rank:self._share() * self.world_size:self.world_size]
        return iter(mine[self._taken:])

    def __len__(self):
        return self._share() - self._taken

    def batches(self, loader):
        """The batches of `loader` (a DataLoader made with this sampler) for the rest of the
        epoch. Each batch counts as taken when the loop gets it (a checkpoint at the next
        boundary resumes after it); when the epoch's batches are done, the next epoch begins."""
        size = self._check(loader)
        share = self._share()
        for batch in loader:
            self._taken = min(self._taken + size, share)
            yield batch
        self.epoch += 1
        self._start = self._taken = 0

    def grouped(self, loader, per_step):
        """The rest of the epoch's batches in lists of `per_step` (an optimizer step's
        micro-batches with gradient accumulation, elastic.accumulation_steps()); the epoch's
        last list may be shorter. The batches of a list are fetched before it is given, and
        count as taken then: checkpoint only between lists."""
        if isinstance(per_step, bool) or not isinstance(per_step, int) or per_step < 1:
            raise ValueError(f"grouped(per_step={per_step!r}): expected a positive integer")
        group = []
        for batch in self.batches(loader):
            group.append(batch)
            if len(group) == per_step:
                yield group
                group = []
        if group:
            yield group

    def _check(self, loader):
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
                          "generator=torch.Generator()))", stacklevel=3)
        return size

    def state_dict(self):
        return {"epoch": self.epoch, "consumed": self.consumed, "size": self.size,
                "seed": self.seed, "shuffle": self.shuffle, "world_size": self.world_size}

    def load_state_dict(self, state):
        """Restores the position, saved at this world size or another. ValueError when the
        checkpoint's data set size, seed or order differs from this sampler's (the position
        would mean other items), or the position is not one of this data set's. A position of
        an older helper (`taken` items per rank at its `world_size`) loads too."""
        for key in ("size", "seed", "shuffle"):
            if key in state and state[key] != getattr(self, key):
                raise ValueError(f"the checkpoint's data position is for {key} {state[key]!r}, "
                                 f"this sampler's {key} is {getattr(self, key)!r}")
        epoch = state.get("epoch")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
            raise ValueError(f"the checkpoint's data position has epoch {epoch!r}: expected an "
                             f"integer >= 0")
        if "consumed" in state:
            consumed = state["consumed"]
            name = "consumed"
        else:
            saved_world = state.get("world_size", self.world_size)
            taken = state.get("taken")
            valid = all(isinstance(v, int) and not isinstance(v, bool)
                        for v in (taken, saved_world)) and saved_world >= 1
            consumed = taken * saved_world if valid else taken
            name = f"taken {taken!r} per rank of world_size {saved_world!r}, so consumed"
        if isinstance(consumed, bool) or not isinstance(consumed, int) or \
                not 0 <= consumed <= self.size:
            raise ValueError(f"the checkpoint's data position ({name} {consumed!r}) is not "
                             f"within the {self.size} items of an epoch")
        self.epoch, self._start, self._taken = epoch, consumed, 0
