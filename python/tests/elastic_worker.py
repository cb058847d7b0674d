"""One rank of the elastic training job of test_elastic_real.py (a torch.distributed job, gloo
on CPU; RANK and WORLD_SIZE from the test, which meet through a file, `--init-file`, so no
port can be taken between its choice and its use): a small MLP learns a fixed synthetic
regression with AdamW and a StepLR schedule, through squeeze_checkpoint's Checkpointer,
ResumableSampler and torch_save_load, with the global batch kept at GLOBAL_BATCH at every world
size (elastic.accumulation_steps), or with `--per-rank-batch`, a batch of BATCH on each rank
and no accumulation (the global batch changes with the world size). Each rank appends the
indices it trains on to LOG_DIR/TAG.rank<R>.txt, one line per micro-batch: `epoch step
index...`. `--stop-at STEP`: rank 0 sends itself SIGUSR1 (squeeze's checkpoint request) after
that step, so every rank saves at that boundary and leaves with exit 0. Rank 0 of a run that
finishes writes `--result` (the final loss over the whole data set).

A rank leaves with os._exit once its files are written and closed, without the interpreter's
teardown: there PyTorch 1.13's gloo can deadlock (the process group's worker thread frees a
tensor Python had seen and waits for the GIL, which the main thread holds while it joins that
thread to destroy the group), rarely, but often enough to hang a test now and then."""

import argparse
import contextlib
import json
import os
import signal
import sys
from datetime import timedelta

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import squeeze_checkpoint  # noqa: E402
from squeeze_checkpoint.elastic import accumulation_steps  # noqa: E402
from squeeze_checkpoint.pytorch import (ResumableSampler, TorchDistributed,  # noqa: E402
                                        torch_save_load)

SIZE, BATCH, GLOBAL_BATCH, EPOCHS = 240, 4, 24, 3  # 10 steps an epoch, 30 in all


def data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(SIZE, 8, generator=g)
    y = torch.tanh(x @ torch.randn(8, 1, generator=g)) + 0.1 * torch.randn(SIZE, 1, generator=g)
    return x, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--stop-at", type=int, default=-1)
    parser.add_argument("--result")
    parser.add_argument("--init-file", required=True)
    parser.add_argument("--per-rank-batch", action="store_true")
    args = parser.parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    # A rank that is gone makes the others fail within a minute instead of waiting 30.
    dist.init_process_group("gloo", init_method=f"file://{args.init_file}", rank=rank,
                            world_size=world, timeout=timedelta(seconds=60))
    x, y = data()
    dataset = torch.utils.data.TensorDataset(x, y, torch.arange(SIZE))
    sampler = ResumableSampler(SIZE, seed=5, rank=rank, world_size=world)
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, sampler=sampler,
                                         generator=torch.Generator())
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    # Wrapped at two and three ranks, bare at one: the checkpoint loads either way.
    model = torch.nn.parallel.DistributedDataParallel(net) if world > 1 else net
    optimizer = torch.optim.AdamW(net.parameters(), lr=0.05)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    accumulation = 1 if args.per_rank_batch else accumulation_steps(GLOBAL_BATCH, BATCH, world)
    save, load = torch_save_load(model=model, optimizer=optimizer, scheduler=scheduler,
                                 data=sampler)
    ckpt = squeeze_checkpoint.Checkpointer(save=save, load=load, collective=TorchDistributed(),
                                           samples_per_step=None if args.per_rank_batch
                                           else GLOBAL_BATCH)
    step = ckpt.resume(default=0)
    with torch.no_grad():
        initial = torch.nn.functional.mse_loss(net(x), y).item()
    print(f"rank {rank} of {world}: accumulation {accumulation}, starting at step {step} "
          f"(epoch {sampler.epoch}, {sampler.consumed} consumed)", flush=True)
    with open(os.path.join(args.log_dir, f"{args.tag}.rank{rank}.txt"), "a") as seen:
        while sampler.epoch < EPOCHS:
            epoch = sampler.epoch
            for group in sampler.grouped(loader, accumulation):
                optimizer.zero_grad()
                items = sum(len(index) for _, _, index in group)
                for n, (xb, yb, index) in enumerate(group):
                    last = n == len(group) - 1
                    sync = contextlib.nullcontext() if last or world == 1 else model.no_sync()
                    with sync:  # the mean over this rank's items; DDP averages the ranks
                        loss = torch.nn.functional.mse_loss(model(xb), yb, reduction="sum")
                        (loss / items).backward()
                    seen.write(f"{epoch} {step} {' '.join(map(str, index.tolist()))}\n")
                optimizer.step()
                scheduler.step()
                step += 1
                seen.flush()
                if rank == 0 and step == args.stop_at:
                    os.kill(os.getpid(), signal.SIGUSR1)
                # Without samples_per_step, the step's own: the ranks' shares are equal.
                ckpt.boundary(step, samples=items * world if args.per_rank_batch else None)
    ckpt.wait()
    if rank == 0 and args.result:
        with torch.no_grad():
            final = torch.nn.functional.mse_loss(net(x), y).item()
        with open(args.result, "w") as f:
            json.dump({"steps": step, "loss": final, "loss_at_start": initial}, f)


if __name__ == "__main__":
    try:
        main()
        code = 0
    except SystemExit as e:  # the helper leaves after the checkpoint squeeze asked for
        code = e.code if isinstance(e.code, int) else 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
