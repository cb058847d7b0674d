"""squeeze's checkpoint protocol for Python training loops (docs/python-checkpoint.md).

    import squeeze_checkpoint
    ckpt = squeeze_checkpoint.Checkpointer(save=save_fn, load=load_fn)
    start = ckpt.resume(default=0)
    for step in ckpt.steps(start, total):
        ...

squeeze_checkpoint.pytorch (torch_save_load, ResumableSampler, TorchDistributed) and
squeeze_checkpoint.huggingface (SqueezeCallback) need PyTorch and transformers only when they
are used. `python3 -m squeeze_checkpoint.relay torchrun ...` passes squeeze's checkpoint
request on to the training processes under a launcher. With SQUEEZE_CHECKPOINT_STORE
(s3://BUCKET/PREFIX) checkpoints also go to object storage (boto3, imported only then).
squeeze_checkpoint.elastic: resuming at another world size (accumulation_steps) and the step
rate each marker reports.
"""

from .checkpointer import Checkpointer, env_interval, two_phase_save
from .marker import CheckpointError, read_marker

__all__ = ["Checkpointer", "CheckpointError", "env_interval", "read_marker", "two_phase_save"]
__version__ = "0.1.0"
