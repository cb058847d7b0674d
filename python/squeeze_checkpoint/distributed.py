"""The ranks of a torch.distributed job as the Checkpointer's `collective`: at every step
boundary the ranks all-reduce (maximum) their flags (asked to checkpoint, asked to stop, a
periodic save due), so a request that reached one rank, or reached the ranks at different
steps, makes every rank save at the same step; rank 0 writes. PyTorch is imported when a
TorchDistributed is made.

    torch.distributed.init_process_group("gloo")
    ckpt = Checkpointer(save=save, load=load, collective=TorchDistributed())
"""


class TorchDistributed:
    """The default process group (or `group`) of an initialized torch.distributed."""

    def __init__(self, group=None):
        try:
            import torch
            import torch.distributed as dist
        except ImportError as e:
            raise ImportError("squeeze_checkpoint.distributed needs PyTorch") from e
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError("TorchDistributed: torch.distributed is not initialized; call "
                               "torch.distributed.init_process_group() first")
        self._torch, self._dist, self._group = torch, dist, group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        # NCCL reduces only tensors on the GPU; gloo and MPI those on the CPU.
        nccl = dist.get_backend(group) == "nccl"
        self._device = f"cuda:{torch.cuda.current_device()}" if nccl else "cpu"

    def agree(self, flags):
        """The element-wise maximum of every rank's `flags` (a list of ints)."""
        t = self._torch.tensor(flags, dtype=self._torch.int64, device=self._device)
        self._dist.all_reduce(t, op=self._dist.ReduceOp.MAX, group=self._group)
        # Kept until the next call: otherwise gloo's worker thread may drop the last reference
        # after wait() returned, and freeing a Python tensor there needs the GIL, which the
        # main thread holds while it destroys the process group at exit (PyTorch 1.13: a
        # deadlock, one rank never exits).
        self._last = t
        return [int(v) for v in t.tolist()]

    def barrier(self):
        self._dist.barrier(group=self._group)
