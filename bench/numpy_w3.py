#!/usr/bin/env python3
"""W3 peer (WORKLOADS.md): the cascade threshold sweep's clustered bootstrap in numpy.

The same statistics `judgestat cascade FILE --first F --fallback S --select 0` computes
(docs/statistics.md §3.3): per threshold of the default grid and `all`, cascade accuracy, Δ against the
fallback, escalated share, share of F's errors escalated, fee ratio and the dollar-matched random
baseline, plus the oracle. Written the way a proficient numpy user would: per-item columns summed
per cluster once, then per chunk of replicates a multiplicity matrix M (from uniform cluster
draws) and one BLAS product M @ A; the statistics are vectorised over replicates.

Prints JSON: statistics with point, lo, hi, se; the seconds of the resampling alone and
cluster draws per second."""
import argparse
import csv
import json
import time

import numpy as np

GRID = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0]

ap = argparse.ArgumentParser()
ap.add_argument("input")
ap.add_argument("--first", default="judge0")
ap.add_argument("--fallback", default="judge7")
ap.add_argument("--replicates", type=int, default=20000)
ap.add_argument("--chunk", type=int, default=2000)
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()

# ---- per item: F's order-averaged p(gold), validity; S's order-0 correctness; fees ----
items, clusters = {}, {}
item_cluster, p_gold_sum, orders_seen, c2, fee_first, fee_fallback = [], [], [], [], [], []
with open(a.input, newline="") as f:
    for r in csv.DictReader(f):
        judge = r["judge"]
        if judge not in (a.first, a.fallback):
            continue
        i = items.get(r["item"])
        if i is None:
            i = items[r["item"]] = len(items)
            item_cluster.append(clusters.setdefault(r.get("cluster") or r["item"], len(clusters)))
            p_gold_sum.append(0.0), orders_seen.append(0), c2.append(0.0), fee_first.append(0.0), fee_fallback.append(0.0)
        fee = float(r.get("fee_usd") or 0.0)
        if judge == a.first:
            p_gold_sum[i] += float(r["p." + r["gold"]])
            orders_seen[i] += 1
            fee_first[i] += fee
        elif int(r.get("order") or 0) == 0:
            c2[i] = 1.0 if r["verdict"] == r["gold"] else 0.0
            fee_fallback[i] = fee

p_gold = np.array(p_gold_sum) / np.maximum(np.array(orders_seen), 1)
q = np.maximum(p_gold, 1.0 - p_gold)
c1 = np.where(p_gold > 0.5, 1.0, np.where(p_gold == 0.5, 0.5, 0.0))
c2 = np.array(c2)
gate_ok = np.array(orders_seen) == 2
fee_first, fee_fallback = np.array(fee_first), np.array(fee_fallback)
N, C = len(items), len(clusters)
err = (c1 < 1).astype(float)

# ---- columns: shared ones, then per threshold (grid + `all`) accepted, a·d, a·err, a·fee_S ----
accepted = [(gate_ok & (q >= t)).astype(float) for t in GRID] + [np.zeros(N)]
shared = [np.ones(N), c1, c2, err, fee_first, fee_fallback, np.maximum(c1, c2)]
per = []
for acc in accepted:
    per += [acc, acc * (c1 - c2), acc * err, acc * fee_fallback]
cols = np.stack(shared + per, axis=1)
A = np.zeros((C, cols.shape[1]))
np.add.at(A, np.array(item_cluster), cols)
T = len(accepted)


def statistics(S):
    """S: (B, K) column sums -> (B, 6·T + 1) statistics."""
    n, s1, s2, se, sff, sfb, sbest = (S[:, k] for k in range(7))
    out = []
    for t in range(T):
        sa, sad, saerr, safb = (S[:, 7 + 4 * t + k] for k in range(4))
        p = (sfb - safb) / sfb
        out += [(s2 + sad) / n, sad / n, (n - sa) / n, (se - saerr) / se, (sff + sfb - safb) / sfb,
                (s1 + p * (s2 - s1)) / n]
    out.append(sbest / n)
    return np.stack(out, axis=1)


names = []
for t in [str(g) for g in GRID] + ["all"]:
    names += [f"{t}/{s}" for s in ("cascade_acc", "cascade_delta", "escalated", "errors_escalated", "fee_ratio",
                                   "random_acc")]
names.append("oracle_acc")
point = statistics(A.sum(0, keepdims=True))[0]

rng = np.random.default_rng(a.seed)
t0 = time.perf_counter()
out = np.empty((a.replicates, len(names)))
done = 0
while done < a.replicates:
    b = min(a.chunk, a.replicates - done)
    idx = rng.integers(0, C, size=(b, C))
    M = np.bincount((idx + C * np.arange(b)[:, None]).ravel(), minlength=b * C).reshape(b, C).astype(np.float64)
    out[done:done + b] = statistics(M @ A)
    done += b
lo, hi = np.percentile(out, [2.5, 97.5], axis=0)
se = out.std(axis=0, ddof=1)
secs = time.perf_counter() - t0
print(json.dumps({"peer": "numpy", "workload": "w3", "replicates": a.replicates, "clusters": int(C),
                  "statistics": len(names), "seconds": secs, "cluster_draws_per_s": a.replicates * C / secs,
                  "results": {k: [point[j], lo[j], hi[j], se[j]] for j, k in enumerate(names)}}))
