#!/usr/bin/env python3
"""Writes idle-nights-load.csv: the GPU load of a team's 100 GPUs that it uses by day and leaves
idle at night and at weekends, as squeeze simulate --inference-load reads it (value in percent,
timestamp in seconds, series name). Four weeks of hourly samples, repeated by the simulator:

- 8 series; GPU k of a colocated pool follows series k mod 8.
- Monday to Friday 08:00-20:00 busy (load 55-94%, varying by hour and series); otherwise idle
  (0-3%), so training may take a GPU at night (cap 0.95: open at a load of 5% or less).
- Not every week is alike: in week 2 series 0-3 also work Tuesday and Wednesday nights until
  02:00 (a deadline), in week 3 series 4-7 work Saturday 10:00-16:00, and in week 4 series 2
  and 6 work all of Thursday night. Predicted windows must live with that.

No randomness: the same file every time. Run from anywhere:
    python3 examples/scenarios/make-idle-nights-load.py
"""
import os

HOUR = 3600
WEEKS = 4
SERIES = 8


def busy(week, series, day, hour):
    if day < 5 and 8 <= hour < 20:
        return True
    if week == 1 and series < 4 and day in (1, 2) and hour >= 20:
        return True
    if week == 1 and series < 4 and day in (2, 3) and hour < 2:
        return True
    if week == 2 and series >= 4 and day == 5 and 10 <= hour < 16:
        return True
    if week == 3 and series in (2, 6) and ((day == 3 and hour >= 20) or (day == 4 and hour < 8)):
        return True
    return False


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "idle-nights-load.csv")
    with open(out, "w") as f:
        f.write("value,timestamp_anon,container_ip\n")
        for h in range(WEEKS * 7 * 24):
            week, day, hour = h // 168, (h // 24) % 7, h % 24
            for s in range(SERIES):
                if busy(week, s, day, hour):
                    value = 55 + (h * 7 + s * 13) % 40
                else:
                    value = (h + s) % 4
                f.write(f"{value},{h * HOUR},team-gpu-{s}\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
