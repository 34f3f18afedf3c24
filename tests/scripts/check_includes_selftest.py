#!/usr/bin/env python3
"""scripts/check-includes.py on small made-up trees: a clean one passes, and each kind of breach it
documents (an include up the pipeline in a room two folders deep, a public header including a
private one, a public function defined in the room judgestat_core leaves out, a private include in
the Python module) is reported at its file and line. Usage: check_includes_selftest.py SOURCE_DIR"""
import pathlib, subprocess, sys, tempfile

script = pathlib.Path(sys.argv[1]) / "scripts" / "check-includes.py"
CLEAN = {
    "CMakeLists.txt": 'list(FILTER JUDGESTAT_HOST_SOURCES EXCLUDE REGEX "/host/cli/")\n',
    "include/judgestat/api.hpp": '#pragma once\n#include "judgestat/other.hpp"\nint public_sum(int a,\n               int b);\n',
    "include/judgestat/other.hpp": "#pragma once\n",
    "host/requests/api.cpp": '#include "judgestat/api.hpp"\n#include "report/r.hpp"\nint public_sum(int a, int b) {\n  return a + b;\n}\n',
    "host/analyses/metrics/m.cpp": '#include "records/x.hpp"\n',
    "host/cli/main.cpp": '#include "requests/a.hpp"\nint main() {\n  return public_sum(1, 2);\n}\n',
    "python/src/module.cpp": '#include "judgestat/api.hpp"\n#include "own.hpp"\n',
    "python/src/own.hpp": "#pragma once\n",
}
BREACHES = {
    "host/analyses/metrics/m.cpp": '#include "records/x.hpp"\n#include "requests/a.hpp"\n',
    "include/judgestat/other.hpp": '#pragma once\n#include "support/text.hpp"\n',
    "host/cli/api_copy.cpp": "int public_sum(int a,\n               int b)\n{\n  return a - b;\n}\n",
    "python/src/module.cpp": '#include "judgestat/api.hpp"\n#include "records/fields.hpp"\n',
}
EXPECTED = [
    "host/analyses/metrics/m.cpp:2: analyses includes requests",
    "include/judgestat/other.hpp:2: a public header includes a private one",
    "host/cli/api_copy.cpp:1: defines public_sum()",
    "python/src/module.cpp:2: the Python module includes a private header",
]


def check(files):
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            path = pathlib.Path(root) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        run = subprocess.run([sys.executable, str(script), root], capture_output=True, text=True)
        return run.returncode, run.stdout


failures = []
rc, out = check(CLEAN)
if rc != 0:
    failures.append(f"clean tree: exit {rc}, expected 0\n{out}")
rc, out = check({**CLEAN, **BREACHES})
if rc != 1:
    failures.append(f"tree with breaches: exit {rc}, expected 1")
for line in EXPECTED:
    if line not in out:
        failures.append(f"not reported: {line}")
if len(out.strip().splitlines()) != len(EXPECTED):
    failures.append(f"expected exactly {len(EXPECTED)} breaches, got:\n{out}")
print("\n".join(failures) if failures else f"check-includes: the clean tree passes, all {len(EXPECTED)} breaches found")
sys.exit(1 if failures else 0)
