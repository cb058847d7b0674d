#!/usr/bin/env python3
"""A plain training loop under squeeze's checkpoint protocol (docs/python-checkpoint.md).

Its state evolves step by step through a fixed recurrence (an LCG and a SHA-256 chain), so a
run that is preempted and resumed any number of times ends with the same result as one that
never stopped. Each step updates the state in two halves with a pause between them: a signal
that arrives mid-step must not see (or save) a half-updated state.

    python3 examples/python/plain_loop.py --steps 200 --step-seconds 0 --result /tmp/r.json
    squeeze submit --preemptible --checkpointable --env PYTHONPATH=$PWD/python \\
        -- python3 $PWD/examples/python/plain_loop.py --steps 2000 --result /tmp/r.json
"""

import argparse
import hashlib
import json
import os
import sys
import time

try:
    import squeeze_checkpoint
except ImportError:  # run from a checkout without `pip install ./python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import squeeze_checkpoint


def one_step(state, step, pause):
    state["x"] = (state["x"] * 6364136223846793005 + 1442695040888963407 + step) % 2**64
    time.sleep(pause / 2)  # the middle of the step
    state["digest"] = hashlib.sha256(f"{state['digest']}:{state['x']}".encode()).hexdigest()
    time.sleep(pause / 2)


def ballast_checkpoint(state, megabytes, shards=8):
    """save/load for a checkpoint that also holds `megabytes` of "weights" in `shards` files,
    derived from the state (so that a resumed run can check it got the files of the step it
    resumed): what makes a checkpoint big enough to take a while to upload."""
    shard_bytes = megabytes * 2**20 // shards

    def shard(i):
        seed = hashlib.sha256(f"{state['digest']}:{i}".encode()).digest()
        return (seed * (shard_bytes // len(seed) + 1))[:shard_bytes]

    def save(path):
        os.makedirs(path)
        for i in range(shards):
            with open(os.path.join(path, f"weights-{i}.bin"), "wb") as f:
                f.write(shard(i))
        with open(os.path.join(path, "state.json"), "w") as f:
            json.dump(state, f)

    def load(path):
        with open(os.path.join(path, "state.json")) as f:
            state.update(json.load(f))
        for i in range(shards):
            with open(os.path.join(path, f"weights-{i}.bin"), "rb") as f:
                if f.read() != shard(i):
                    raise SystemExit(f"{path}/weights-{i}.bin does not belong to its state")

    return save, load


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--step-seconds", type=float, default=0.03)
    p.add_argument("--interval", type=float, default=None, help="seconds between saves")
    p.add_argument("--print-every", type=int, default=50)
    p.add_argument("--result", help="write the final state here (JSON)")
    p.add_argument("--ballast-mb", type=int, default=0,
                   help="add this many MB of weights derived from the state to each checkpoint")
    args = p.parse_args()

    state = {"x": 1, "digest": ""}
    if args.ballast_mb > 0:
        save, load = ballast_checkpoint(state, args.ballast_mb)
        ckpt = squeeze_checkpoint.Checkpointer(save=save, load=load, interval=args.interval)
    else:
        ckpt = squeeze_checkpoint.Checkpointer(state=state, interval=args.interval)
    start = ckpt.resume(default=0)
    print(f"attempt {os.environ.get('SQUEEZE_ATTEMPT', '-')}: "
          f"{'resuming' if ckpt.resuming else 'starting'} at step {start}", flush=True)
    for step in ckpt.steps(start, args.steps):
        one_step(state, step, args.step_seconds)
        if (step + 1) % args.print_every == 0:
            print(f"step {step + 1}/{args.steps} x={state['x']}", flush=True)

    result = {"steps": args.steps, "x": state["x"], "digest": state["digest"]}
    print(f"done: {json.dumps(result)}", flush=True)
    if args.result:
        with open(args.result + ".tmp", "w") as f:
            json.dump(result, f)
        os.replace(args.result + ".tmp", args.result)


if __name__ == "__main__":
    main()
