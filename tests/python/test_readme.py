"""README's Python section is a notebook-style doctest: its ```python blocks run as written (from
the source folder, so the bundled data paths work) and print what README shows."""
import doctest
import os
import re

import pytest

from conftest import SOURCE_DIR

pytest.importorskip("judgestat")


def readme_python_blocks():
    with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as readme:
        text = readme.read()
    section = re.search(r"^## Python\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert section, "README has no '## Python' section"
    return re.findall(r"```python\n(.*?)```", section.group(1), flags=re.S)


def test_readme_python_examples_run(monkeypatch):
    blocks = [b for b in readme_python_blocks() if ">>>" in b]
    assert blocks, "README's Python section has no >>> example"
    monkeypatch.chdir(SOURCE_DIR)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {}
    for k, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, globs, f"README block {k}", "README.md", 0))
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0 and failed == 0
