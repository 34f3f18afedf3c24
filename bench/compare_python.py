#!/usr/bin/env python3
"""judgestat from Python beside what a Python user would write instead (issue #17, part 5).

1. Accuracy of one judge, unclustered (scipy has no clusters): judgestat.metrics on a DataFrame
   against scipy.stats.bootstrap (percentile and BCa, vectorized=True, the same B), the whole
   call timed (DataFrame → records, the run, the result tables). judgestat computes its whole
   per-judge family in that call (acc per order, pa, bc, cons, …), scipy the one mean.
2. W1's clustered statistics (WORKLOADS.md) on its generated input: judgestat.metrics on the
   DataFrame against the numpy peer (numpy_bootstrap.py), in cluster draws per second.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/compare_python.py PEERS_DIR [--replicates 10000]
   or, against the package `pip install .` built (docs/python.md), that environment's python:
       VENV/bin/python bench/compare_python.py PEERS_DIR   (scipy installed there too)
Not a test: prints the timings and ratios for bench/RESULTS.md, and which judgestat it timed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import scipy.stats

import judgestat


def best_of(repeats, work):
    """The best wall time of `repeats` runs, its value, and the process CPU time of that run
    (all threads): CPU / wall below the threads used means the machine was busy."""
    best = None
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        value = work()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        if best is None or wall < best[0]:
            best = (wall, value, cpu)
    best_of.cpu = best[2]
    return best[0], best[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("peers", help="the anchors folder (gen_workload.py, numpy_bootstrap.py)")
    ap.add_argument("--replicates", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scipy-batch", type=int, default=1000, help="scipy's batch (memory: B × n at once otherwise)")
    a = ap.parse_args()
    B = a.replicates
    print(f"judgestat {judgestat.__version__} from {os.path.dirname(judgestat.__file__)}; Python "
          f"{sys.version.split()[0]}, numpy {np.__version__}, pandas {pd.__version__}, scipy {scipy.__version__}")
    work = tempfile.mkdtemp(prefix="judgestat-python-bench-")
    w1 = os.path.join(work, "w1.csv")
    subprocess.run([sys.executable, os.path.join(a.peers, "gen_workload.py"), "--items", "20000", "--clusters",
                    "5000", "--judges", "8", "--seed", "1", "--out", w1], check=True)
    records = pd.read_csv(w1)
    judge0 = records["judge"].iloc[0]
    # The one statistic scipy computes: accuracy, so no probabilities (judgestat would add the
    # probability-quality family for them), fees or clusters.
    one = records[(records["judge"] == judge0) & (records["order"] == 0)][["judge", "item", "gold", "verdict"]]
    correct = (one["verdict"] == one["gold"]).to_numpy(dtype=np.float64)
    print(f"unclustered accuracy of {judge0}: {len(one)} items, B = {B}, best of {a.repeats}")

    rows = []
    for method, ci in [("percentile", "percentile"), ("BCa", "bca")]:
        t_ours, ours = best_of(a.repeats, lambda: judgestat.metrics(one, replicates=B, ci=ci, backend="cpu",
                                                                   judges=[judge0]).statistics)
        cpu_ours = best_of.cpu
        t_scipy, theirs = best_of(a.repeats, lambda: scipy.stats.bootstrap(
            (correct,), np.mean, vectorized=True, n_resamples=B, method=method, batch=a.scipy_batch,
            random_state=np.random.default_rng(1)))
        cpu_scipy = best_of.cpu
        acc = ours.query("name == 'acc' and order == 0").iloc[0]
        rows.append((method, t_ours, t_scipy))
        print(f"  {method:10s} judgestat.metrics {t_ours:8.3f} s  ({acc['estimate']:.4f} "
              f"[{acc['ci_lo']:.4f}, {acc['ci_hi']:.4f}], {len(ours)} statistics)   scipy.stats.bootstrap "
              f"{t_scipy:8.3f} s  ({correct.mean():.4f} [{theirs.confidence_interval.low:.4f}, "
              f"{theirs.confidence_interval.high:.4f}])   ratio {t_scipy / t_ours:6.1f}x   (CPU s: judgestat "
              f"{cpu_ours:.2f}, scipy {cpu_scipy:.2f})")

    # W1: the clustered statistics on the whole input beside the numpy peer. W1's statistics are
    # the accuracy family, so the records go in without probabilities, fees and latencies (the
    # probability-quality family, with its AUROC rank terms, would add ~280 statistics).
    w1_records = records[["judge", "item", "cluster", "benchmark", "order", "gold", "verdict"]]
    t_load, matrix = best_of(1, lambda: judgestat.load(w1_records))
    t_ours, result = best_of(a.repeats, lambda: judgestat.metrics(w1_records, replicates=B, backend="cpu",
                                                                 diff=["acc"]))
    resample_s = result.json["timing"]["resample_s"]
    clusters = len(matrix.clusters)
    peer = json.loads(subprocess.run([sys.executable, "numpy_bootstrap.py", w1, "--replicates", str(B)],
                                     cwd=a.peers, check=True, capture_output=True, text=True).stdout)
    ours_rate = B * clusters / t_ours
    print(f"W1 (20000 items, {clusters} clusters, 8 judges), B = {B}:")
    print(f"  judgestat.metrics on the DataFrame: {t_ours:.3f} s for the whole call ({len(result.statistics)} "
          f"statistics; DataFrame → matrix {t_load:.3f} s, resampling {resample_s:.3f} s) = {ours_rate:.3g} "
          f"cluster draws/s; resampling alone {B * clusters / resample_s:.3g}")
    print(f"  numpy peer: {peer['seconds']:.3f} s ({peer['statistics']} statistics, resampling only) = "
          f"{peer['cluster_draws_per_s']:.3g} cluster draws/s")
    print(f"  ratio (whole judgestat call / numpy resampling): {ours_rate / peer['cluster_draws_per_s']:.1f}x")


if __name__ == "__main__":
    main()
