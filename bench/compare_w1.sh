#!/usr/bin/env bash
# W1 (WORKLOADS.md): judgestat's clustered bootstrap beside the numpy peer (and, on a GPU machine,
# the PyTorch peer) on the same generated input, printing both rates and their ratio.
# usage: bench/compare_w1.sh PEERS_DIR   (e.g. ../shared/anchors)
# env: JUDGESTAT (binary, default build/judgestat), B_CPU (200000), B_NUMPY (20000),
#      B_GPU (1000000), PYTHON (/usr/bin/python3: Debian's numpy, on OpenBLAS when installed; see common.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh" "$@"
peer_info
"$py" "$peers/gen_workload.py" --items 20000 --clusters 5000 --judges 8 --seed 1 --out "$work/w1.csv"

rate() { "$py" -c 'import json,sys; print(json.load(sys.stdin)["cluster_draws_per_s"])'; }

ours_cpu=$("$bin" bench w1 --input "$work/w1.csv" --replicates "${B_CPU:-200000}" --backend cpu --warmup 0 --repeats 1 --format json --results)
numpy=$(cd "$peers" && "$py" numpy_bootstrap.py "$work/w1.csv" --replicates "${B_NUMPY:-20000}")
r_cpu=$(echo "$ours_cpu" | rate); r_numpy=$(echo "$numpy" | rate)
printf '%-34s %14s\n' "W1 (20000 items, 5000 clusters)" "draws/s"
printf '%-34s %14.3g\n' "judgestat cpu ($(nproc) cores)" "$r_cpu" "numpy peer" "$r_numpy"
echo "ratio cpu / numpy: $(ratio "$r_cpu" "$r_numpy")"

# Same input, same statistics: point estimates must agree exactly; CIs only statistically.
"$py" - "$ours_cpu" "$numpy" <<'PY'
import json, sys
ours, peer = json.loads(sys.argv[1])["results"], json.loads(sys.argv[2])["results"]
worst = 0.0
for name, (est, lo, hi, se) in peer.items():
    judge, stat = name.rsplit("/", 1)
    key = f"{judge.split('-')[0]}/diff" if stat == "acc_diff" else name
    worst = max(worst, abs(ours[key][0] - est))
print(f"largest point-estimate difference against numpy: {worst:.3g} ({len(peer)} statistics)")
PY

if "$bin" bench w1 --backend cuda --items 100 --clusters 10 --replicates 2 --warmup 0 --repeats 1 >/dev/null 2>&1; then
  ours_gpu=$("$bin" bench w1 --input "$work/w1.csv" --replicates "${B_GPU:-1000000}" --backend cuda --format json --repeats 3)
  r_gpu=$(echo "$ours_gpu" | rate)
  r_gpu_all=$(echo "$ours_gpu" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["with_summary_cluster_draws_per_s"])')
  printf '%-34s %14.3g\n' "judgestat cuda" "$r_gpu" "judgestat cuda, with summaries" "$r_gpu_all"
  if "$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    torch=$(cd "$peers" && "$py" torch_bootstrap.py "$work/w1.csv" --replicates "${B_GPU:-1000000}")
    r_torch=$(echo "$torch" | rate)
    printf '%-34s %14.3g\n' "PyTorch peer" "$r_torch"
    echo "ratio cuda / PyTorch: $(ratio "$r_gpu" "$r_torch")"
    # The peer's timing includes its quantiles and SE on the GPU: this is the like-for-like one.
    echo "ratio cuda with summaries / PyTorch: $(ratio "$r_gpu_all" "$r_torch")"
  fi
else
  echo "(no usable CUDA device: GPU rows skipped)"
fi
