#!/usr/bin/env python3
"""judgestat's loader against pandas.read_csv on the same records file (issue 26 part 7):
records per second of each, their ratio, and the loader's peak memory as a multiple of the file.

judgestat.load(PATH) reads, hashes (SHA-256), checks and pivots the records into the item
matrix; pd.read_csv(PATH) parses the same text into a DataFrame (numbers converted, nothing
checked). Each runs REPEATS times in this process, alternating; the median is reported. The peak
memory of a load is measured in a fresh process (VmHWM after the load less VmRSS before it, so
the interpreter and its imports do not count).

usage: PYTHONPATH=build/python /usr/bin/python3 bench/compare_loader.py [--records N] [--repeats R] [--file F]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

PEAK_CHILD = r"""
import sys, judgestat
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
before = status("VmRSS:")
m = judgestat.load(sys.argv[1])
print(status("VmHWM:") - before, m.records)
"""


def timed(load, path):
    start = time.perf_counter()
    load(path)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--file", help="an existing records CSV (default: generate one with make_records.py)")
    args = parser.parse_args()

    import judgestat
    import pandas as pd

    with tempfile.TemporaryDirectory() as work:
        path = args.file
        if path is None:
            path = os.path.join(work, "records.csv")
            subprocess.run([sys.executable, os.path.join(HERE, "make_records.py"), str(args.records), path], check=True)
        size = os.path.getsize(path)
        records = judgestat.load(path).records
        ours, theirs = [], []
        for _ in range(args.repeats):
            ours.append(timed(judgestat.load, path))
            theirs.append(timed(pd.read_csv, path))
        peak = subprocess.run([sys.executable, "-c", PEAK_CHILD, path], check=True, capture_output=True, text=True)
        peak_bytes = int(peak.stdout.split()[0])
    ours_s, theirs_s = statistics.median(ours), statistics.median(theirs)
    print(f"file: {size / 1e6:.1f} MB, {records} records with probabilities "
          f"(pandas {pd.__version__}, judgestat {judgestat.__version__}, load average {os.getloadavg()[0]:.1f})")
    print(f"judgestat.load: {records / ours_s:.3g} records/s (median of {args.repeats}: {ours_s:.2f} s; "
          f"all: {', '.join(f'{t:.2f}' for t in ours)})")
    print(f"pandas.read_csv: {records / theirs_s:.3g} records/s (median of {args.repeats}: {theirs_s:.2f} s; "
          f"all: {', '.join(f'{t:.2f}' for t in theirs)})")
    print(f"ratio (judgestat / pandas records/s): {theirs_s / ours_s:.2f}x "
          f"({'goal met' if ours_s <= theirs_s else 'goal NOT met'}: at least match pandas)")
    print(f"judgestat.load peak memory: {peak_bytes / 1e6:.0f} MB = {peak_bytes / size:.2f}x the file (goal <= 4x)")


if __name__ == "__main__":
    main()
