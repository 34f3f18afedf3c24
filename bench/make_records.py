#!/usr/bin/env python3
"""Writes a synthetic judgment-records CSV with probabilities (docs/statistics.md §1) for the
loader's memory and throughput measurements: RECORDS rows of 4 judges x 2 orders per item, items
in clusters of 4, labels A and B, p.A and p.B given. Deterministic (seeded).

usage: make_records.py RECORDS OUT.csv
"""
import random
import sys


def main():
    records, out = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(26)
    judges = ["judge-a", "judge-b", "judge-c", "judge-d"]
    with open(out, "w") as f:
        f.write("judge,item,cluster,order,gold,verdict,p.A,p.B\n")
        written = 0
        item = 0
        while written < records:
            gold = "A" if rng.random() < 0.5 else "B"
            for judge in judges:
                for order in (0, 1):
                    if written == records:
                        break
                    p = round(rng.random(), 4)
                    verdict = "A" if p >= 0.5 else "B"
                    f.write(f"{judge},i{item},c{item // 4},{order},{gold},{verdict},{p},{round(1 - p, 4)}\n")
                    written += 1
            item += 1


if __name__ == "__main__":
    main()
