"""Shared pieces of the Python tests: the module (skipped with a visible reason when it was not
built), the bundled data and the CLI binary to compare with (ctest sets JUDGESTAT_BINARY,
JUDGESTAT_SOURCE_DIR and PYTHONPATH=build/python).

JUDGESTAT_TEST_INSTALLED=1 (CI's `pip install .` step) tests the package pip installed: it must
be imported from this Python's site-packages (never build/python or python/), and the CLI is the
`judgestat` pip put on PATH beside it."""
import os
import re
import shutil
import subprocess
import sysconfig

import pytest

SOURCE_DIR = os.environ.get("JUDGESTAT_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
INSTALLED = os.environ.get("JUDGESTAT_TEST_INSTALLED") == "1"
BINARY = os.environ.get("JUDGESTAT_BINARY") or (
    shutil.which("judgestat") if INSTALLED else os.path.join(SOURCE_DIR, "build", "judgestat"))
JUDGEBENCH = os.path.join(SOURCE_DIR, "data", "judgebench", "gpt4o_split.csv")
LLMBAR = os.path.join(SOURCE_DIR, "data", "llmbar", "natural_neighbor.csv")

try:
    import judgestat  # noqa: F401
    MODULE_ERROR = None
except ImportError as error:  # the module was not built (JUDGESTAT_PYTHON=OFF or no pybind11)
    MODULE_ERROR = str(error)
    if INSTALLED:
        raise RuntimeError(f"JUDGESTAT_TEST_INSTALLED=1 but judgestat does not import: {error}") from None


def installed_package_dir():
    """This Python's site-packages folder holding judgestat (pip's install), else None."""
    import judgestat
    package = os.path.dirname(os.path.realpath(judgestat.__file__))
    sites = {os.path.realpath(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")}
    return package if os.path.dirname(package) in sites else None


if INSTALLED and installed_package_dir() is None:
    import judgestat
    raise RuntimeError(f"JUDGESTAT_TEST_INSTALLED=1 but judgestat was imported from {judgestat.__file__}, not from "
                       f"this Python's site-packages ({sysconfig.get_paths()['platlib']}); unset PYTHONPATH")


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
