#!/usr/bin/env python3
"""A PyTorch training loop under squeeze's checkpoint protocol (docs/python-checkpoint.md):
the model's and the optimizer's state_dict() saved with torch.save to a temporary file that
the Checkpointer renames into place. Exits 77 (skipped) when PyTorch is not installed.

    python3 examples/python/pytorch_loop.py --steps 300
"""

import argparse
import os
import sys

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed (pip install torch)", file=sys.stderr)
    sys.exit(77)

try:
    import squeeze_checkpoint
except ImportError:  # run from a checkout without `pip install ./python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import squeeze_checkpoint
from squeeze_checkpoint.pytorch import torch_save_load


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--interval", type=float, default=600, help="seconds between saves")
    args = p.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    save, load = torch_save_load(model=model, optimizer=optimizer)
    ckpt = squeeze_checkpoint.Checkpointer(save=save, load=load, interval=args.interval)
    start = ckpt.resume(default=0)
    for step in ckpt.steps(start, args.steps):
        batch = torch.Generator().manual_seed(step)  # step N's batch is the same on every run
        x = torch.randn(32, 16, generator=batch).to(device)
        y = x.sum(dim=1, keepdim=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (step + 1) % 50 == 0:
            print(f"step {step + 1}/{args.steps} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
