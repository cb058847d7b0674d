#!/usr/bin/env python3
"""Mean queueing delay and JCT by job size, per policy, from `squeeze simulate --jobs-csv`.

  python3 scripts/queue_by_size.py JOBS.csv [--big 8] [--exclude-pool POOL ...]

Prints, for each policy in the file: all jobs, jobs of at most BIG GPUs and jobs of more than
BIG GPUs (count, mean queue s, mean JCT s). Standard library only.
"""

import argparse
import collections
import csv
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("jobs_csv")
    parser.add_argument("--big", type=int, default=8,
                        help="jobs of more than this many GPUs count as big (default 8)")
    parser.add_argument("--exclude-pool", action="append", default=[], metavar="POOL",
                        help="leave out the jobs of this pool (repeatable)")
    args = parser.parse_args()
    sums = collections.OrderedDict()
    try:
        with open(args.jobs_csv, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row["pool"] in args.exclude_pool:
                    continue
                by_class = sums.setdefault(row["policy"],
                                           collections.defaultdict(lambda: [0, 0.0, 0.0]))
                big = int(row["gpus"]) > args.big
                for key in ("all", f"> {args.big} GPUs" if big else f"<= {args.big} GPUs"):
                    s = by_class[key]
                    s[0] += 1
                    s[1] += float(row["queue_s"])
                    s[2] += float(row["jct_s"])
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"queue_by_size: {args.jobs_csv}: {e!r}")
    classes = ["all", f"<= {args.big} GPUs", f"> {args.big} GPUs"]
    width = max([len(p) for p in sums] + [6])
    print(f"{'policy':<{width}} {'jobs':>12} {'class':>10} {'avg_queue':>10} {'avg_jct':>10}")
    for policy, by_class in sums.items():
        for key in classes:
            n, queue, jct = by_class.get(key, [0, 0.0, 0.0])
            if n == 0:
                continue
            print(f"{policy:<{width}} {n:>12} {key:>10} {queue / n:>10.0f} {jct / n:>10.0f}")


if __name__ == "__main__":
    main()
