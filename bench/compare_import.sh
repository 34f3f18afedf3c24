#!/usr/bin/env bash
# Import speed (issue 29 item 5): N JSONL lines of a judge harness's log (two games per line, the
# second swapped) read through an import map, against the same 2N records read as CSV. Both are
# loaded by `judgestat metrics` (two replicates); the figure is the load time its JSON reports
# (timing.load_s), best of RUNS runs, beside the whole run's wall and CPU time. Goal: the map
# within 2x of the CSV reader.
# usage: [JUDGESTAT=build/judgestat] [N=1000000] [RUNS=3] bench/compare_import.sh
set -euo pipefail
bin=${JUDGESTAT:-build/judgestat}
n=${N:-1000000}
runs=${RUNS:-3}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 8 judges; item i's gold alternates A/B; verdicts follow a fixed pattern (no randomness: the
# same files every run).
"$py" - "$n" "$work" <<'PY'
import sys
n, d = int(sys.argv[1]), sys.argv[2]
presented = {"A": "B", "B": "A"}
score = {"A": "A>B", "B": "B>A"}
with open(f"{d}/log.jsonl", "w") as log, open(f"{d}/records.csv", "w") as csv:
    csv.write("judge,item,order,gold,verdict\n")
    for k in range(n):
        j, i = k % 8, k // 8
        gold = "AB"[i % 2]
        v0 = gold if (k * 7) % 10 < 8 else presented[gold]
        v1 = gold if (k * 3) % 10 < 7 else presented[gold]
        log.write(f'{{"question_id": "q{i}", "judge": "j{j}", "label": "{gold}", '
                  f'"games": [{{"score": "{score[v0]}"}}, {{"score": "{score[presented[v1]]}"}}]}}\n')
        csv.write(f"j{j},q{i},0,{gold},{v0}\nj{j},q{i},1,{gold},{v1}\n")
PY
cat > "$work/map.json" <<'JSON'
{"input": "jsonl", "each": "games",
 "fields": {"judge": "judge", "item": "question_id", "order": "$index", "gold": "label",
            "verdict": {"path": "@.score", "values": {"A>B": "A", "B>A": "B"}}},
 "swap": {"when": {"path": "$index", "equals": 1}, "labels": {"A": "B", "B": "A"}}}
JSON

# Per run: the load time its JSON reports (timing.load_s) and the whole run's wall and CPU time
# (user + sys) from /usr/bin/time; the best of `runs` runs of each. The machine may be shared:
# the load average is printed beside them.
best_of() {
  local load="" wall="" cpu=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$work/time.txt" \
      "$bin" metrics "$@" --replicates 2 --quiet --format json --json "$work/out.json" >/dev/null
    read -r w u s <"$work/time.txt"
    local l
    l=$("$py" -c "import json; print(json.load(open('$work/out.json'))['timing']['load_s'])")
    load=$("$py" -c "print(round(min(float(x) for x in '$load $l'.split()), 3))")
    wall=$("$py" -c "print(min(float(x) for x in '$wall $w'.split()))")
    cpu=$("$py" -c "print(round(min([float(x) for x in '$cpu'.split()] + [$u + $s]), 2))")
  done
  echo "$load $wall $cpu"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r csv_load csv_wall csv_cpu < <(best_of "$work/records.csv")
read -r map_load map_wall map_cpu < <(best_of --map "$work/map.json" "$work/log.jsonl")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lines: $n JSONL ($((2 * n)) records), best of $runs runs"
echo "CSV:                 load ${csv_load}s; whole run ${csv_wall}s wall, ${csv_cpu}s CPU"
echo "JSONL through a map: load ${map_load}s; whole run ${map_wall}s wall, ${map_cpu}s CPU"
"$py" -c "print(f'map / CSV: load {$map_load / $csv_load:.2f}x, whole-run CPU {$map_cpu / $csv_cpu:.2f}x')"
