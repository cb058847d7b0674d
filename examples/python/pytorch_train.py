#!/usr/bin/env python3
"""A real PyTorch training job under squeeze's checkpoint protocol (docs/python-checkpoint.md):
a small classifier (an MLP with dropout, AdamW, a cosine LR schedule) learns a synthetic data
set made in the script, on CPU or GPU, in about a minute on two CPU cores. Everything the next
step needs is in the checkpoint: the weights, the optimizer, the scheduler, the random
number generators, the data loader's position (ResumableSampler: epoch and batches taken,
with two loader workers) and the loss curve, so a run preempted any number of times ends with
the same weights and losses, bit for bit, as one that never stopped.

Distributed: under torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or a squeeze job of
several nodes (one process per node: SQUEEZE_NODE_RANK of SQUEEZE_NNODES, SQUEEZE_MASTER_ADDR
and SQUEEZE_MASTER_PORT), it trains with DistributedDataParallel (gloo on CPU, NCCL on GPU);
the ranks agree at every step boundary on when to save, rank 0 writes the checkpoint.

    python3 examples/python/pytorch_train.py --result out/train.json
    python3 examples/python/pytorch_train.py --asynchronous ...   # saves in the background
Exits 77 (skipped) when PyTorch is not installed.
"""

import argparse
import hashlib
import json
import os
import sys
import time

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed (Debian: apt-get install python3-torch)",
          file=sys.stderr)
    sys.exit(77)

try:
    import squeeze_checkpoint
except ImportError:  # run from a checkout without `pip install ./python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import squeeze_checkpoint
from squeeze_checkpoint.pytorch import ResumableSampler, TorchDistributed, torch_save_load


class LossCurve:
    """The loss of every step so far; a checkpoint keeps it like the model."""

    def __init__(self):
        self.losses = []

    def state_dict(self):
        return {"losses": list(self.losses)}

    def load_state_dict(self, state):
        self.losses = list(state["losses"])


def synthetic_data(size, features, classes):
    """Inputs and the labels a fixed random teacher network gives them (seeded: the same data
    on every run and every rank)."""
    g = torch.Generator()
    g.manual_seed(1234)
    x = torch.randn(size, features, generator=g)
    teacher = torch.randn(features, classes, generator=g)
    y = (torch.tanh(x @ teacher) + 0.3 * torch.randn(size, classes, generator=g)).argmax(dim=1)
    return torch.utils.data.TensorDataset(x, y)


def start_distributed(device):
    """(rank, world size) after init_process_group, or (0, 1) for a run of one process."""
    env = os.environ
    if int(env.get("WORLD_SIZE", "1")) > 1:  # torchrun
        rank, world, init = int(env["RANK"]), int(env["WORLD_SIZE"]), "env://"
    elif int(env.get("SQUEEZE_NNODES", "1")) > 1:  # one process per node of a squeeze job
        rank, world = int(env["SQUEEZE_NODE_RANK"]), int(env["SQUEEZE_NNODES"])
        init = f"tcp://{env['SQUEEZE_MASTER_ADDR']}:{env['SQUEEZE_MASTER_PORT']}"
    else:
        return 0, 1
    import datetime
    torch.distributed.init_process_group("nccl" if device == "cuda" else "gloo",
                                         init_method=init, rank=rank, world_size=world,
                                         timeout=datetime.timedelta(seconds=120))
    return rank, world


def digest(state):
    """sha256 of a state_dict's tensors and values, in key order."""
    h = hashlib.sha256()

    def feed(value):
        if torch.is_tensor(value):
            h.update(value.detach().cpu().contiguous().numpy().tobytes())
        elif isinstance(value, dict):
            for k in sorted(value, key=str):
                h.update(repr(k).encode())
                feed(value[k])
        elif isinstance(value, (list, tuple)):
            for v in value:
                feed(v)
        else:
            h.update(repr(value).encode())

    feed(state)
    return h.hexdigest()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--samples", type=int, default=8192, help="size of the data set")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256, help="width of the two hidden layers")
    p.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    p.add_argument("--interval", type=float, default=None, help="seconds between saves")
    p.add_argument("--asynchronous", action="store_true", help="save in the background")
    p.add_argument("--step-seconds", type=float, default=0, help="sleep in every step")
    p.add_argument("--print-every", type=int, default=100)
    p.add_argument("--result", help="write the final digests and losses here (JSON)")
    args = p.parse_args()

    # First, so that a checkpoint request that comes while the data loads is not lost.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    rank, world = start_distributed(device)
    torch.manual_seed(0)  # every rank alike: rank 0's generators restore every rank
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // max(1, world)))
    data = synthetic_data(args.samples, 32, 10)
    sampler = ResumableSampler(len(data), seed=7, rank=rank, world_size=world)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch_size, sampler=sampler,
                                         num_workers=args.workers, generator=torch.Generator())
    net = torch.nn.Sequential(torch.nn.Linear(32, args.hidden), torch.nn.ReLU(),
                              torch.nn.Dropout(0.1), torch.nn.Linear(args.hidden, args.hidden),
                              torch.nn.ReLU(), torch.nn.Dropout(0.1),
                              torch.nn.Linear(args.hidden, 10)).to(device)
    model = torch.nn.parallel.DistributedDataParallel(net) if world > 1 else net
    optimizer = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=0.01)
    steps_per_epoch = -(-sampler.per_rank // args.batch_size)
    total = args.epochs * steps_per_epoch
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total)
    curve = LossCurve()

    save, load = torch_save_load(model=net, optimizer=optimizer, scheduler=scheduler,
                                 data=sampler, curve=curve)
    ckpt = squeeze_checkpoint.Checkpointer(
        save=save, load=load, interval=args.interval, asynchronous=args.asynchronous,
        collective=TorchDistributed() if world > 1 else None)
    step = ckpt.resume(default=0)
    print(f"rank {rank} of {world} on {device}: {total} steps (epochs: {args.epochs}, "
          f"{steps_per_epoch} steps each), starting at step {step} (epoch {sampler.epoch}, "
          f"{sampler.taken} items taken)", flush=True)
    started = time.monotonic()
    while sampler.epoch < args.epochs:
        for x, y in sampler.batches(loader):
            x, y = x.to(device), y.to(device)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            curve.losses.append(loss.item())
            if args.step_seconds:
                time.sleep(args.step_seconds)
            step += 1
            if step % args.print_every == 0 or step == total:
                print(f"step {step}/{total} epoch {sampler.epoch} loss {loss.item():.4f}",
                      flush=True)
            ckpt.boundary(step)
    ckpt.wait()
    elapsed = time.monotonic() - started

    with torch.no_grad():
        net.eval()
        x, y = data.tensors
        accuracy = (net(x.to(device)).argmax(dim=1).cpu() == y).float().mean().item()
    result = {"steps": step, "rank": rank, "world_size": world,
              "final_loss": curve.losses[-1], "accuracy": round(accuracy, 4),
              "weights": digest(net.state_dict()), "optimizer": digest(optimizer.state_dict()),
              "scheduler": digest(scheduler.state_dict()),
              "losses": hashlib.sha256(json.dumps(curve.losses).encode()).hexdigest()}
    print(f"done in {elapsed:.1f}s: " + json.dumps(result), flush=True)
    if args.result and rank == 0:
        with open(args.result, "w") as f:
            json.dump({**result, "loss_curve": curve.losses}, f)
    if world > 1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
