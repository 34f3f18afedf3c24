#!/usr/bin/env python3
"""Whether two judgestat JSON outputs of the same work on two backends hold the same results
(bench/gpu_session.sh's bit-identity step: `bench w1 --results` or a study's results.json, once
with --backend cuda and once with --backend cpu).

Dropped before comparing, wherever they occur: what times the run (`timing`, a study entry's
`seconds`, bench's rates `*_per_s`, `range`, `repetitions`, `probe_fraction`) and what names the
run rather than its results (`backend`, `device`, `argv`, a study's `target`, cache `key` and
`reused`). Everything else must be equal: strings and integers exactly, numbers as the doubles
their 17 significant digits name (docs/statistics.md §4), so equal text means equal bits. The one
exception the contract allows (docs/statistics.md, "bit-identical results across backends"):
statistics built on normal draws (the bias-corrected CAP cells, device log/cos) match to 1e-12
relative, so inside a study analysis whose "analysis" is "profile" such numbers are counted and
shown apart, not failed.

usage: same_results.py A.json B.json
exit: 0 the same, 1 different (the first differences are printed), 2 unreadable input.
"""
import json
import math
import sys

DROPPED = {"timing", "seconds", "range", "repetitions", "probe_fraction",
           "backend", "device", "argv", "target", "key", "reused"}
NEAR = 1e-12
SHOWN = 12


def dropped(key):
    return key in DROPPED or key.endswith("_per_s")


def walk(a, b, path, near_ok, out):
    """Appends (kind, path, a, b) for every difference; counts compared values in out["values"]."""
    if isinstance(a, dict) and isinstance(b, dict):
        near_ok = near_ok or a.get("analysis") == "profile"
        for key in sorted(set(a) | set(b)):
            if dropped(key):
                out["dropped"][key] = out["dropped"].get(key, 0) + 1
                continue
            here = f"{path}.{key}" if path else key
            if key not in a or key not in b:
                out["diffs"].append(("missing", here, a.get(key, "<absent>"), b.get(key, "<absent>")))
            else:
                walk(a[key], b[key], here, near_ok, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out["diffs"].append(("length", path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            name = x.get("name") if isinstance(x, dict) and isinstance(x.get("name"), str) else i
            walk(x, y, f"{path}[{name}]", near_ok, out)
    else:
        out["values"] += 1
        if type(a) is type(b) and a == b:
            return
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
        if numbers and near_ok and math.isfinite(a) and math.isfinite(b) and \
                abs(a - b) <= NEAR * max(abs(a), abs(b)):
            out["near"].append(("last bits", path, a, b))
        else:
            out["diffs"].append(("value", path, a, b))


def main(argv):
    if len(argv) != 3:
        print("usage: same_results.py A.json B.json", file=sys.stderr)
        return 2
    documents = []
    for name in argv[1:]:
        try:
            with open(name, encoding="utf-8") as f:
                documents.append(json.load(f))
        except (OSError, ValueError) as error:
            print(f"{name}: cannot read JSON: {error}", file=sys.stderr)
            return 2
    out = {"values": 0, "dropped": {}, "diffs": [], "near": []}
    walk(documents[0], documents[1], "", False, out)
    dropped_text = ", ".join(f"{k} ×{n}" for k, n in sorted(out["dropped"].items())) or "nothing"
    for kind, path, x, y in out["diffs"][:SHOWN] + out["near"][:SHOWN]:
        print(f"  {kind}: {path}: {x!r} against {y!r}")
    if out["near"]:
        print(f"{len(out['near'])} profile numbers differ within {NEAR:g} relative (normal draws)")
    if out["diffs"]:
        print(f"DIFFERENT: {len(out['diffs'])} of {out['values']} values differ "
              f"({argv[1]} against {argv[2]}; dropped {dropped_text})")
        return 1
    exact = out["values"] - len(out["near"])
    print(f"same: {exact} of {out['values']} values equal bit for bit, the rest within the contract "
          f"(dropped {dropped_text})" if out["near"] else f"same: {exact} values equal bit for bit (dropped {dropped_text})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
