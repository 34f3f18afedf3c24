#!/usr/bin/env bash
# Coverage of the CI methods by number of clusters (issue 18's table, reduced size): for each C,
# a design of C clusters of 2 items, two orders and two judges (accuracies ≈ 0.75 and 0.65, an
# order effect on the second) is written, and `judgestat coverage` simulates DATASETS datasets
# of it under its logit-normal model (ICC fixed at $ICC), runs every method with B replicates and
# reports coverage per statistic (acc J1, acc J2, diff J2 − J1). Printed: the mean over the three
# statistics per method, then the per-statistic rows. Usage:
#   JUDGESTAT=build/judgestat [CLUSTERS="10 20 50 100"] [DATASETS=200] [B=500] [ICC=0.2] bench/coverage.sh
set -euo pipefail
JUDGESTAT=${JUDGESTAT:-build/judgestat}
CLUSTERS=${CLUSTERS:-"10 20 50 100"}
DATASETS=${DATASETS:-200}
B=${B:-500}
ICC=${ICC:-0.2}
SEED=${SEED:-1}
BACKEND=${BACKEND:-cpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for C in $CLUSTERS; do
  python3 - "$C" > "$work/design_$C.csv" <<'PY'
import sys
C = int(sys.argv[1])
print("judge,item,gold,verdict,cluster,order")
for c in range(C):
    for k in range(2):
        item = 2 * c + k
        for o in range(2):
            # Deterministic rules giving J1 ≈ 0.75 and J2 ≈ 0.65 (better in order 1).
            j1 = (item * 7 + o) % 4 != 0
            j2 = (item * 5 + 3 * o) % 20 < (12 if o == 0 else 14)
            print(f"J1,i{item},A,{'A' if j1 else 'B'},c{c},{o}")
            print(f"J2,i{item},A,{'A' if j2 else 'B'},c{c},{o}")
PY
  "$JUDGESTAT" coverage "$work/design_$C.csv" --judges J1,J2 --datasets "$DATASETS" --replicates "$B" \
    --icc "$ICC" --seed "$SEED" --backend "$BACKEND" --quiet --format csv > "$work/coverage_$C.csv"
done

python3 - "$work" $CLUSTERS <<'PY'
import csv, sys
work, clusters = sys.argv[1], sys.argv[2:]
methods = ["percentile", "basic", "bca", "t", "studentized"]
print("| clusters | " + " | ".join(methods) + " |")
print("|---|" + "---|" * len(methods))
detail = []
for C in clusters:
    rows = list(csv.DictReader(open(f"{work}/coverage_{C}.csv")))
    means = []
    for m in methods:
        cells = [r for r in rows if r["method"] == m]
        means.append(100 * sum(float(r["coverage"]) for r in cells) / len(cells))
        for r in cells:
            detail.append((C, r["statistic"] + " " + r["judge"] + (" − " + r["reference"] if r["reference"] else ""),
                           m, 100 * float(r["coverage"]), 100 * float(r["mc_se"])))
    print(f"| {C} | " + " | ".join(f"{v:.1f}" for v in means) + " |")
print()
print("| clusters | statistic | method | coverage (%) | MC SE |")
print("|---|---|---|---|---|")
for C, s, m, v, se in detail:
    print(f"| {C} | {s} | {m} | {v:.1f} | {se:.1f} |")
PY
