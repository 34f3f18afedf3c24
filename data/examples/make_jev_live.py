"""Writes jev_live.csv: a synthetic "live" rerun of part of jev_style.csv (docs/papers.md, JEV Table 36).

Synthetic. Deterministic: reads jev_style.csv (beside this script) and changes it by hashes of the names
(no random module). Keeps the RB and JB items and the judges JEV and GPT-6, as a second run of the same
requests would return them: each probability of the chosen label moves by up to ±0.06 (kept in
[0.5, 1], the other label gets the rest, the verdict stays), and every latency is drawn again (a live
service: JEV 0.5–1.5 s, GPT-6 3–11 s). `cascade … --compare-gate` then compares the two runs' gates.
Run: python3 data/examples/make_jev_live.py > data/examples/jev_live.csv
"""
import csv
import hashlib
import os
import sys

LATENCY = {"JEV": (0.5, 1.0), "GPT-6": (3.0, 8.0)}  # (lowest, spread) in seconds


def u(*names):
    """A number in [0, 1) from the names: the file's only source of variation."""
    digest = hashlib.sha256("/".join(str(n) for n in names).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def main():
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jev_style.csv")
    with open(source, newline="") as f:
        rows = list(csv.DictReader(f))
    fields = ["judge", "item", "cluster", "benchmark", "condition", "order", "gold", "verdict", "p.A", "p.B",
              "fee_usd", "latency_s"]
    out = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    out.writeheader()
    for row in rows:
        if row["benchmark"] not in ("RB", "JB") or row["judge"] not in LATENCY:
            continue
        key = (row["judge"], row["item"], row["order"])
        if row["verdict"] in ("A", "B") and row["p.A"]:
            other = "B" if row["verdict"] == "A" else "A"
            q = float(row["p." + row["verdict"]]) + 0.12 * (u("live", *key) - 0.5)
            q = min(1.0, max(0.5, q))
            row["p." + row["verdict"]], row["p." + other] = f"{q:.4f}", f"{1.0 - q:.4f}"
        low, spread = LATENCY[row["judge"]]
        row["latency_s"] = f"{low + spread * u('live latency', *key):.3f}"
        out.writerow(row)


main()
