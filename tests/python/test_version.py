"""One version: CMakeLists.txt's project(judgestat VERSION …), read here with its own regex, is
`judgestat.__version__`, the first line of `judgestat --version` and, for the package pip
installed, its metadata (pyproject.toml reads it from CMakeLists.txt)."""
import os
import re
import subprocess

import pytest

from conftest import BINARY, INSTALLED, SOURCE_DIR, installed_package_dir

judgestat = pytest.importorskip("judgestat")


def cmake_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt"), encoding="utf-8") as cmake:
        found = re.search(r"^project\(judgestat VERSION ([0-9.]+)[ )]", cmake.read(), flags=re.M)
    assert found, "CMakeLists.txt has no project(judgestat VERSION …)"
    return found.group(1)


def test_module_version_is_cmakes():
    assert judgestat.__version__ == cmake_version()


def test_cli_version_is_cmakes():
    done = subprocess.run([BINARY, "--version"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"judgestat {cmake_version()}"


@pytest.mark.skipif(not INSTALLED, reason="JUDGESTAT_TEST_INSTALLED is not set: the module comes from the build "
                                          "folder, which has no package metadata (CI's pip-install step runs it)")
def test_installed_metadata_is_cmakes_and_the_cli_is_beside_the_package():
    from importlib import metadata
    assert metadata.version("judgestat") == cmake_version()
    meta = metadata.metadata("judgestat")
    assert meta["License-Expression"] == "MIT"  # LICENSE's first line: "MIT License"
    assert meta["Requires-Python"] == ">=3.9"
    assert {r.split(";")[0].split(">=")[0] for r in metadata.requires("judgestat")} >= {"numpy", "pandas", "pyarrow"}
    package = installed_package_dir()
    assert package is not None
    installed = {os.path.realpath(p.locate()) for p in metadata.files("judgestat")}
    assert os.path.realpath(os.path.join(package, "__init__.py")) in installed
    assert os.path.realpath(BINARY) in installed  # the judgestat on PATH is the wheel's
