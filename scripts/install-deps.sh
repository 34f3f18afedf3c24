#!/usr/bin/env bash
# Installs the Debian packages judgestat builds with, when they are missing. As root it runs
# apt-get; otherwise it prints the apt-get line to run. CUDA (nvcc) is optional and not
# installed here: without it the CPU backend is built. OpenMPI is for runs over several GPUs
# (mpirun; README "More than one GPU") and its tests. The python3-* packages and pybind11 build
# and test the Python module (README "Python"); scipy is for bench/compare_python.py and OpenBLAS
# for the numpy peers of bench/ (numpy on Debian's reference BLAS runs them 2× slower). Chromium
# renders the study report headless in a test (tests/study/test_report_browser.cpp; skipped with a
# message where it is missing). python3-venv makes CI's fresh venv for `pip install .`, and ccache
# (CMake's compiler launcher when found) lets that pip build reuse the README build's objects.
# help2man makes the man page from `judgestat --help` (CMake target `man`; its test skips without).
set -euo pipefail
packages=(cmake g++ make clang-format libcxxopts-dev nlohmann-json3-dev googletest libgtest-dev libopenmpi-dev openmpi-bin
          pybind11-dev python3-pybind11 python3-dev python3-pytest python3-pandas python3-numpy python3-scipy libopenblas0-pthread chromium
          python3-venv ccache help2man)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: missing packages; run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
