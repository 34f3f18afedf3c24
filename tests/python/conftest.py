"""Shared pieces of the Python tests: the module (skipped with a visible reason when it was not
built), the bundled data and the CLI binary to compare with (ctest sets JUDGESTAT_BINARY,
JUDGESTAT_SOURCE_DIR and PYTHONPATH=build/python)."""
import os
import re
import subprocess

import pytest

SOURCE_DIR = os.environ.get("JUDGESTAT_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BINARY = os.environ.get("JUDGESTAT_BINARY", os.path.join(SOURCE_DIR, "build", "judgestat"))
JUDGEBENCH = os.path.join(SOURCE_DIR, "data", "judgebench", "gpt4o_split.csv")
LLMBAR = os.path.join(SOURCE_DIR, "data", "llmbar", "natural_neighbor.csv")

try:
    import judgestat  # noqa: F401
    MODULE_ERROR = None
except ImportError as error:  # the module was not built (JUDGESTAT_PYTHON=OFF or no pybind11)
    MODULE_ERROR = str(error)


def pytest_collection_modifyitems(config, items):
    if MODULE_ERROR is None:
        return
    skip = pytest.mark.skip(reason=f"SKIP: the judgestat module was not built ({MODULE_ERROR}); "
                                   "build with -DJUDGESTAT_PYTHON=ON and set PYTHONPATH=build/python")
    for item in items:
        item.add_marker(skip)


def run_cli(*args):
    """The CLI's stdout for `judgestat ARGS` (fails the test on a non-zero exit)."""
    done = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def without_argv_and_timing(json_text):
    """The JSON text with its "argv" array and "timing" object cut out, everything else byte for byte."""
    text = re.sub(r'\n *"argv": \[.*?\n *\],?', "", json_text, count=1, flags=re.S)
    return re.sub(r'\n *"timing": \{[^{}]*\},?', "", text, count=1)


def without_input(json_text):
    """Also without the "input" object (a DataFrame has no path or file digest)."""
    return re.sub(r'\n *"input": \{[^{}]*\},?', "", without_argv_and_timing(json_text), count=1)
