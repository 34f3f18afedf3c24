#!/usr/bin/env bash
# W3 (WORKLOADS.md): the cascade threshold sweep with clustered bootstrap CIs: `judgestat cascade`
# (first stage judge0, fallback judge7, default grid and `all`, --select 0 = the sweep alone)
# beside bench/numpy_w3.py doing the same sweep's bootstrap in numpy, on the same generated input.
# Prints both rates (cluster draws per second of resampling, loading excluded) and their ratio,
# then checks that the point estimates agree.
# usage: bench/compare_w3.sh PEERS_DIR   (e.g. ../shared/anchors; gen_workload.py comes from there)
# env: JUDGESTAT (binary, default build/judgestat), B_CPU (200000), B_NUMPY (20000),
#      B_GPU (1000000), PYTHON (/usr/bin/python3)
set -euo pipefail
source "$(dirname "$0")/common.sh" "$@"
peer_info
"$py" "$peers/gen_workload.py" --items 20000 --clusters 5000 --judges 8 --seed 1 --out "$work/w1.csv"

ours_rate() { "$py" -c 'import json,sys; d=json.load(sys.stdin); print(d["timing"]["replicates_per_s"] * d["pool"]["clusters"])'; }
peer_rate() { "$py" -c 'import json,sys; print(json.load(sys.stdin)["cluster_draws_per_s"])'; }

cascade() {
  "$bin" cascade "$work/w1.csv" --first judge0 --fallback judge7 --select 0 --quiet --format json "$@"
}
cascade --backend cpu --replicates "${B_CPU:-200000}" >"$work/ours_cpu.json"
"$py" "$here/numpy_w3.py" "$work/w1.csv" --first judge0 --fallback judge7 --replicates "${B_NUMPY:-20000}" \
  >"$work/numpy.json"
r_cpu=$(ours_rate <"$work/ours_cpu.json"); r_numpy=$(peer_rate <"$work/numpy.json")
printf '%-40s %14s\n' "W3 (20000 items, 5000 clusters)" "draws/s"
printf '%-40s %14.3g\n' "judgestat cascade, cpu ($(nproc) cores)" "$r_cpu" "numpy peer" "$r_numpy"
echo "ratio cpu / numpy: $(ratio "$r_cpu" "$r_numpy")"

# Same input, same statistics: point estimates agree to rounding; CIs only statistically.
"$py" - "$work/ours_cpu.json" "$work/numpy.json" <<'PY'
import json, sys
ours, peer = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["results"]
mine = {}
for row in ours["statistics"]:
    t = row["threshold"]
    if isinstance(t, str) and t != "all":
        continue  # risk-coverage points ("coverage=0.5") and reliability bins: not in the peer's sweep
    key = row["name"] if t is None else ("all" if t == "all" else str(float(t))) + "/" + row["name"]
    mine[key] = row["estimate"]
worst = max(abs(mine[name] - values[0]) for name, values in peer.items())
print(f"largest point-estimate difference against numpy: {worst:.3g} ({len(peer)} statistics; "
      f"judgestat's run computes {len(ours['statistics'])}, the risk-coverage curve and reliability bins included)")
PY

if "$bin" cascade "$work/w1.csv" --first judge0 --fallback judge7 --select 0 --backend cuda --replicates 2 --quiet \
     >/dev/null 2>&1; then
  cascade --backend cuda --replicates "${B_GPU:-1000000}" >"$work/ours_gpu.json"
  printf '%-40s %14.3g\n' "judgestat cascade, cuda" "$(ours_rate <"$work/ours_gpu.json")"
else
  echo "(no usable CUDA device: GPU row skipped)"
fi
