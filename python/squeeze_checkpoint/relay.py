"""Passes squeeze's checkpoint request on to the training processes under a launcher that does
not: `torchrun` handles SIGTERM, SIGINT, SIGHUP and SIGQUIT only, so the SIGUSR1 squeeze sends
ends it. Run the launcher under the relay:

    python3 -m squeeze_checkpoint.relay torchrun --nproc_per_node=4 train.py

The relay starts the command as its child and waits for it. On SIGUSR1 it sends SIGUSR1 to the
processes of the command's tree that handle it (those whose Checkpointer installed a handler,
read from /proc/PID/status), going down the tree from the command and stopping at each such
process, so their own children (DataLoader workers) are left alone; a process that does not
handle it (the launcher, a shell) is not signalled. SIGTERM, SIGINT and SIGHUP go to the
command. It exits with the command's status (128 + N when a signal N ended it). Linux only.
"""

import os
import signal
import subprocess
import sys

USAGE = "usage: python3 -m squeeze_checkpoint.relay COMMAND [ARGS...]"


def children_map():
    """{pid: [child pids]} of every process visible in /proc."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        children.setdefault(ppid, []).append(int(name))
    return children


def handles(pid, signum):
    """Whether process `pid` catches signal `signum` (its SigCgt mask)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError):
        pass
    return False


def handlers_below(root, signum, children=None):
    """The topmost processes of `root`'s tree (root included) that catch `signum`."""
    children = children if children is not None else children_map()
    found, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        if handles(pid, signum):
            found.append(pid)
        else:
            todo.extend(sorted(children.get(pid, [])))
    return found


def relay(argv, log=None):
    """Runs argv, relaying signals as the module says; returns the exit status to exit with."""
    log = log or (lambda text: print(f"squeeze_checkpoint.relay: {text}", file=sys.stderr,
                                     flush=True))
    if not argv:
        log(USAGE)
        return 2
    try:
        child = subprocess.Popen(argv)
    except OSError as e:
        log(f"cannot start {argv[0]}: {e.strerror}")
        return 127

    def on_usr1(signum, frame):
        targets = handlers_below(child.pid, signal.SIGUSR1)
        if not targets:
            log(f"SIGUSR1: no process under {argv[0]} (pid {child.pid}) handles it yet; "
                f"not passed on")
        for pid in targets:
            try:
                os.kill(pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
        if targets:
            log(f"SIGUSR1 passed on to {', '.join(map(str, targets))}")

    def forward(signum, frame):
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGUSR1, on_usr1)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    code = child.wait()
    return 128 - code if code < 0 else code


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    return relay(args)


if __name__ == "__main__":
    sys.exit(main())
