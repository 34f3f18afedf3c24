#!/usr/bin/env bash
# W2 (WORKLOADS.md): judgestat's label-budget simulation beside the numpy peer (and, on a GPU
# machine, the PyTorch peer) on the same generated input: first stage judge0, fallback judge7,
# k = 96, lower-bound rule, default grid. Prints draws/s, their ratio, and the loss shares side by
# side (the peers draw with their own generators: shares agree within Monte Carlo error only).
# usage: bench/compare_w2.sh PEERS_DIR   (e.g. ../shared/anchors)
# env: JUDGESTAT (binary, default build/judgestat), D_CPU (200000), D_NUMPY (20000),
#      D_GPU (10000000), D_TORCH (1000000), PYTHON (/usr/bin/python3)
set -euo pipefail
source "$(dirname "$0")/common.sh" "$@"
peer_info
"$py" "$peers/gen_workload.py" --items 1850 --clusters 1850 --judges 8 --seed 1 --out "$work/w2.csv"

ours() {  # ours BACKEND DRAWS -> judgestat's JSON
  "$bin" budget "$work/w2.csv" --first judge0 --fallback judge7 --k 96 --rule lower \
    --backend "$1" --draws "$2" --format json --quiet
}
field() { "$py" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ours_rate='d["timing"]["draws_per_s"]'
ours_loss='d["budget"][0]["loss_share"]'
peer_rate='d["draws_per_s"]'
peer_loss='d["p_loss_over_tol"]'
row() { printf '%-28s %12.3g %12.4f %10s\n' "$1" "$2" "$3" "$4"; }

d_cpu=${D_CPU:-200000}
d_numpy=${D_NUMPY:-20000}
ours_cpu=$(ours cpu "$d_cpu")
numpy=$(cd "$peers" && "$py" numpy_budget.py "$work/w2.csv" --draws "$d_numpy" --k 96)
r_cpu=$(echo "$ours_cpu" | field "$ours_rate"); r_numpy=$(echo "$numpy" | field "$peer_rate")
printf '%-28s %12s %12s %10s\n' "W2 (1850 items, k = 96)" "draws/s" "loss share" "draws"
row "judgestat cpu ($(nproc) cores)" "$r_cpu" "$(echo "$ours_cpu" | field "$ours_loss")" "$d_cpu"
row "numpy peer" "$r_numpy" "$(echo "$numpy" | field "$peer_loss")" "$d_numpy"
echo "ratio cpu / numpy: $(ratio "$r_cpu" "$r_numpy")"

if "$bin" budget "$work/w2.csv" --first judge0 --fallback judge7 --k 96 --rule lower --backend cuda \
     --draws 10 --quiet >/dev/null 2>&1; then
  d_gpu=${D_GPU:-10000000}
  ours_gpu=$(ours cuda "$d_gpu")
  r_gpu=$(echo "$ours_gpu" | field "$ours_rate")
  row "judgestat cuda" "$r_gpu" "$(echo "$ours_gpu" | field "$ours_loss")" "$d_gpu"
  if "$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    d_torch=${D_TORCH:-1000000}
    torch=$(cd "$peers" && "$py" torch_budget.py "$work/w2.csv" --draws "$d_torch" --k 96)
    r_torch=$(echo "$torch" | field "$peer_rate")
    row "PyTorch peer" "$r_torch" "$(echo "$torch" | field "$peer_loss")" "$d_torch"
    echo "ratio cuda / PyTorch: $(ratio "$r_gpu" "$r_torch")"
  fi
else
  echo "(no usable CUDA device: GPU rows skipped)"
fi
