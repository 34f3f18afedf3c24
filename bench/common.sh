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
