# Shared set-up of the bench/compare_w*.sh scripts (sourced, not run): the peers' folder, the
# judgestat binary, Python, a scratch folder removed on exit, and the ratio printer.
# usage inside a script: source "$(dirname "$0")/common.sh" "$@"
peers=${1:?usage: $(basename "$0") PEERS_DIR   (e.g. ../shared/anchors)}
peers=$(cd "$peers" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
bin=${JUDGESTAT:-build/judgestat}
py=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ratio() { "$py" -c "print(f'{$1 / $2:.1f}x')"; }

# The numpy peer runs as fast as this machine lets it: Debian's numpy (/usr/bin/python3; the
# pyenv python3 on PATH has none) calls whichever libblas.so.3 the alternatives system points
# at, and with only libblas3 installed that is the reference BLAS, whose M @ A made the peer
# 2–3× slower (issue #19). OpenBLAS is preferred whenever it is installed.
openblas_dir=/usr/lib/x86_64-linux-gnu/openblas-pthread
if [ -e "$openblas_dir/libblas.so.3" ]; then export LD_LIBRARY_PATH="$openblas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
# One line naming the interpreter, numpy and the BLAS library numpy has loaded; a warning when
# that is the reference BLAS.
peer_info() {
  "$py" - <<'PY'
import sys, numpy as np
a = np.ones((64, 64)); a @ a  # loads the BLAS
blas = sorted({line.split()[-1] for line in open("/proc/self/maps") if "blas" in line.lower() and ".so" in line})
print(f"peer: {sys.executable} (Python {sys.version.split()[0]}), numpy {np.__version__}, BLAS {', '.join(blas) or '?'}")
if blas and not any("openblas" in b or "mkl" in b or "blis" in b for b in blas):
    print("peer: warning: numpy runs on the reference BLAS; for the peer's real speed: "
          "apt-get install libopenblas0-pthread", file=sys.stderr)
PY
}
