"""judgestat.run_study (issue 17): the bundled study from Python equals `judgestat run` on the
same study, analysis by analysis (minus timing), and a second run reuses every analysis."""
import json
import os

import judgestat
import pytest

from conftest import SOURCE_DIR, run_cli

STUDY = os.path.join(SOURCE_DIR, "configs", "study_bundled.json")


def results_without_run_fields(path):
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    return [{k: v for k, v in entry["result"].items() if k not in ("timing", "argv")} | {"name": entry["name"]}
            for entry in results["analyses"]]


def test_run_study_equals_the_cli_and_reuses(tmp_path):
    py_out, cli_out = tmp_path / "py", tmp_path / "cli"
    first = judgestat.run_study(STUDY, py_out, threads=2)
    assert first.reused == [] and len(first.computed) == len(first.results["analyses"]) >= 5
    run_cli("run", STUDY, "--out", cli_out, "--threads", "2", "--quiet")
    assert results_without_run_fields(first.results_path) == results_without_run_fields(cli_out / "results.json")
    assert "judgebench_metrics" in first.computed
    assert first.analysis("judgebench_metrics")["statistics"]

    second = judgestat.run_study(STUDY, py_out, threads=2)
    assert second.computed == [] and second.reused == first.computed


def test_run_study_errors(tmp_path):
    with pytest.raises(ValueError):
        judgestat.run_study(tmp_path / "missing.json", tmp_path / "out")
    with pytest.raises(TypeError, match="seed"):
        judgestat.run_study(STUDY, tmp_path / "out", seed=-1)


def test_a_study_option_of_the_wrong_json_type_names_its_key(tmp_path):
    study = tmp_path / "study.json"
    records = os.path.join(SOURCE_DIR, "data", "judgebench", "gpt4o_split.csv")
    study.write_text(json.dumps({"inputs": {"jb": records},
                                 "analyses": [{"analysis": "metrics", "input": "jb", "replicates": "300"}]}))
    with pytest.raises(judgestat.UsageError, match=r"analyses\[0\] \(metrics_jb\): key 'replicates': expected a "
                                                   r'whole number from 0 to 18446744073709551615, got string "300"$'):
        judgestat.run_study(study, tmp_path / "out")
    assert not (tmp_path / "out").exists()
