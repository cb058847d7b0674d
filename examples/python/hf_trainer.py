#!/usr/bin/env python3
"""Hugging Face's Trainer under squeeze's checkpoint protocol (docs/python-checkpoint.md):
SqueezeCallback asks the Trainer to save and stop when squeeze sends SIGUSR1, reports each
checkpoint the Trainer saves, and resume_path() resumes from the last one. A tiny model built
here (nothing is downloaded). Exits 77 (skipped) when PyTorch or transformers is not installed.

    python3 examples/python/hf_trainer.py --steps 200
"""

import argparse
import os
import sys

try:
    import torch
    from transformers import Trainer, TrainingArguments
except ImportError:
    print("skipped: PyTorch and transformers are not installed (pip install torch transformers)",
          file=sys.stderr)
    sys.exit(77)

try:
    import squeeze_checkpoint  # noqa: F401
except ImportError:  # run from a checkout without `pip install ./python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from squeeze_checkpoint.huggingface import SqueezeCallback, resume_path


class TinyRegressor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 1)

    def forward(self, x, labels=None):
        out = self.linear(x)
        loss = None if labels is None else torch.nn.functional.mse_loss(out, labels)
        return {"loss": loss, "logits": out}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--output-dir", default=os.environ.get("SQUEEZE_CHECKPOINT_DIR", "hf-output"))
    args = p.parse_args()

    g = torch.Generator().manual_seed(0)
    xs = torch.randn(1024, 8, generator=g)
    data = [{"x": x, "labels": x.sum().reshape(1)} for x in xs]
    training = TrainingArguments(
        output_dir=args.output_dir, max_steps=args.steps, per_device_train_batch_size=16,
        save_strategy="steps", save_steps=100, save_total_limit=2,  # keep 2: see the docs
        logging_steps=50, report_to=[])
    trainer = Trainer(model=TinyRegressor(), args=training, train_dataset=data,
                      callbacks=[SqueezeCallback()])
    trainer.train(resume_from_checkpoint=resume_path())


if __name__ == "__main__":
    main()
