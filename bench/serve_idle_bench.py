#!/usr/bin/env python3
"""How long another user waits while one user holds the API's connections (issue 34).

A real root daemon (`squeeze serve --data DIR --virtual-gpus 2 --listen 127.0.0.1:0`, plus the
flags given), the test accounts (tests/test_accounts.sh create), and sqz-bob holding 200
connections on the Unix socket and 200 on TCP from a process of his own: a quarter of each send
a byte of a request head every 2 s (slowloris), the rest stay idle, and every connection the
server closes is opened again. Meanwhile sqz-alice's `squeeze queue` runs N times over the socket
and N times over HTTP (SQUEEZE_URL and her token); the harness prints median, p95 and max wall
seconds of each, with the machine's core count. Needs root. Nothing here is a test: no figure
is asserted.

    /usr/bin/python3 bench/serve_idle_bench.py SQUEEZE [--runs 20] [--hold 200] [--slow 50]
                     [--label NAME] [-- SERVE_FLAGS...]

SQUEEZE is the squeeze binary to serve with (squeeze-supervisor beside it), e.g. a build of
main for the server before issue 34. A run that takes over 30 s is counted as failed; after two
in a row the other runs of that way are skipped.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import hostile_http_test as hostile  # noqa: E402
import serve_lib  # noqa: E402

RUN_TIMEOUT = 30


def time_runs(scene, how, runs):
    """Wall seconds of each of `runs` `squeeze queue` as alice over `how`; None for a failure."""
    argv, env = scene.alice_command(how)
    times, failed_in_a_row = [], 0
    for _ in range(runs):
        began = time.monotonic()
        try:
            r = subprocess.run(argv, env=env, cwd="/tmp", capture_output=True, text=True,
                               timeout=RUN_TIMEOUT)
            ok = r.returncode == 0 and "alices" in r.stdout
        except subprocess.TimeoutExpired:
            ok = False
        times.append(time.monotonic() - began if ok else None)
        failed_in_a_row = 0 if ok else failed_in_a_row + 1
        if failed_in_a_row == 2:
            break
    return times


def summary(times):
    done = sorted(t for t in times if t is not None)
    failed = len(times) - len(done)
    if not done:
        return f"n={len(times)} all failed (over {RUN_TIMEOUT} s or an error)"
    p95 = done[min(len(done) - 1, max(0, int(round(0.95 * len(done))) - 1))]
    return (f"n={len(done)} median={statistics.median(done):.3f}s p95={p95:.3f}s "
            f"max={done[-1]:.3f}s" + (f" failed={failed}" if failed else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("squeeze")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--hold", type=int, default=200, help="connections per entry point")
    parser.add_argument("--slow", type=int, default=50, help="of those, how many are slowloris")
    parser.add_argument("--label", default="")
    argv = sys.argv[1:]
    serve_flags = argv[argv.index("--") + 1:] if "--" in argv else []
    a = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.serve_flags = serve_flags
    if os.geteuid() != 0:
        sys.exit("serve_idle_bench: needs root (a root daemon, bob's and alice's accounts)")
    work = tempfile.mkdtemp(prefix="squeeze-idle-bench-")
    with serve_lib.Harness(work) as h:
        with hostile.Scene(os.path.abspath(a.squeeze), h, a.serve_flags) as scene:
            baseline = {how: time_runs(scene, how, 5) for how in ("socket", "HTTP")}
            bob = scene.as_bob("hold", scene.target("both", n_sock=a.hold, n_tcp=a.hold,
                                                    slow=a.slow, reopen=True))
            seen = bob.stdout.readline().strip()
            time.sleep(3)  # a slowloris byte or two in
            loaded = {how: time_runs(scene, how, a.runs) for how in ("socket", "HTTP")}
            rss = scene.rss_mib()
            bob.stdin.close()
            bob.wait(timeout=30)
    label = a.label or os.path.abspath(a.squeeze)
    print(f"serve_idle_bench: {label} {' '.join(a.serve_flags)}".rstrip())
    print(f"  cores={os.cpu_count()} bob holds {a.hold} on the socket + {a.hold} on TCP "
          f"({a.slow} of each slowloris): {seen}")
    for how in ("socket", "HTTP"):
        print(f"  alice squeeze queue over {how:6}  alone: {summary(baseline[how])}")
        print(f"  alice squeeze queue over {how:6}  held:  {summary(loaded[how])}")
    print(f"  daemon RSS with the connections held: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
