"""repeats and systems from Python, and --scale as scale= (issue 28 "Everywhere"): on the bundled
data/examples files the result is the CLI's --json (minus argv and timing), the estimates equal the
CLI's, scale= loads scores as --scale does, and a wrong-typed keyword names the keyword."""
import json
import math
import os

import pandas as pd
import pytest

from conftest import SOURCE_DIR, run_cli, without_argv_and_timing

judgestat = pytest.importorskip("judgestat")

EXAMPLES = os.path.join(SOURCE_DIR, "data", "examples")
REPEATS = os.path.join(EXAMPLES, "repeats.csv")
WIN_RATES = os.path.join(EXAMPLES, "win_rates.csv")
SCORES = os.path.join(EXAMPLES, "score_judges.csv")

# (id, command, records, keyword arguments, the same as CLI flags)
CASES = [
    ("repeats", "repeats", REPEATS, dict(replicates=300, by="variant"), ["--replicates", "300", "--by", "variant"]),
    ("repeats_requests", "repeats", REPEATS, dict(replicates=100, requests=True), ["--replicates", "100", "--requests"]),
    ("systems", "systems", WIN_RATES, dict(systems=["x.model_a", "x.model_b"], baseline="mistral-7b", replicates=300),
     ["--systems", "x.model_a,x.model_b", "--baseline", "mistral-7b", "--replicates", "300"]),
    ("systems_self", "systems", WIN_RATES,
     dict(self="x.model_a,x.model_b", family="gpt-judge=openai,gpt-4o=openai,claude-judge=anthropic,claude-3=anthropic",
          replicates=200),
     ["--self", "x.model_a,x.model_b", "--family",
      "gpt-judge=openai,gpt-4o=openai,claude-judge=anthropic,claude-3=anthropic", "--replicates", "200"]),
    ("metrics_scale", "metrics", SCORES, dict(scale="1:10", raters=["close", "lenient", "noisy"], replicates=300),
     ["--scale", "1:10", "--raters", "close,lenient,noisy", "--replicates", "300"]),
]


def estimates(document):
    return [(row["name"], row.get("judge"), row.get("label"), row.get("reference"), row["estimate"])
            for row in json.loads(document)["statistics"]]


@pytest.mark.parametrize("name,command,path,options,flags", CASES, ids=[c[0] for c in CASES])
def test_result_is_the_cli_json(name, command, path, options, flags):
    result = getattr(judgestat, command)(path, backend="cpu", **options)
    cli = run_cli(command, path, *flags, "--backend", "cpu", "--format", "json", "--quiet")
    assert estimates(result.to_json()) == estimates(cli)
    assert len(estimates(cli)) > 0
    assert without_argv_and_timing(result.to_json()) == without_argv_and_timing(cli)


def test_requests_are_every_compared_request():
    """requests=True: one row per request with two members; agree is the mean of all_agree (docs §8.5)."""
    document = json.loads(judgestat.repeats(REPEATS, replicates=100, requests=True, backend="cpu").to_json())
    rows = pd.DataFrame(document["requests"])
    assert len(rows) == 2 * (60 + 30 + 30)  # two judges; 30 items x 2 orders repeated, 30 paraphrased, 30 swapped
    records = pd.read_csv(REPEATS)
    calm_swaps = rows[(rows.judge == "calm") & (rows.family == "rotation")]
    plain = records[(records.judge == "calm") & (records.variant == "plain") & (records.repeat == 0)]
    same = plain.groupby("item")["verdict"].nunique() == 1
    assert list(calm_swaps["all_agree"]) == list(same.loc[list(calm_swaps["item"])])
    agree = [r for r in document["statistics"] if r["name"] == "rotation_agree" and r["judge"] == "calm"
             and r.get("variant") is None]
    assert agree[0]["estimate"] == pytest.approx(calm_swaps["all_agree"].mean(), abs=1e-12)


def test_scale_keyword_gives_the_cli_pearson_and_pearsons_r():
    result = judgestat.metrics(SCORES, scale="1:10", replicates=200, backend="cpu")
    cli = json.loads(run_cli("metrics", SCORES, "--scale", "1:10", "--replicates", "200", "--backend", "cpu",
                             "--format", "json", "--quiet"))
    mine = {r["judge"]: r["estimate"] for r in json.loads(result.to_json())["statistics"]
            if r["name"] == "pearson" and r.get("reference") is None}
    theirs = {r["judge"]: r["estimate"] for r in cli["statistics"] if r["name"] == "pearson" and r.get("reference") is None}
    assert mine == theirs and set(mine) == {"close", "lenient", "noisy"}
    records = pd.read_csv(SCORES)
    for judge, estimate in mine.items():
        rows = records[records["judge"] == judge]
        assert estimate == pytest.approx(rows["verdict"].corr(rows["gold"]), abs=1e-12)
    # load(scale=) then the matrix: the same; (low, high) is the same scale as "low:high".
    matrix = judgestat.load(SCORES, scale=(1, 10))
    assert matrix.scale == (1.0, 10.0)
    again = judgestat.metrics(matrix, scale="1:10", replicates=200, backend="cpu")
    assert estimates(again.to_json()) == estimates(result.to_json())


def test_scale_mismatch_and_bad_scale_are_errors():
    with pytest.raises(ValueError, match=r"^scale \(--scale\): the ItemMatrix was loaded with scale=None"):
        judgestat.metrics(judgestat.load(SCORES), scale="1:10", backend="cpu")
    with pytest.raises(judgestat.UsageError, match=r"^scale \(--scale\): expected LOW:HIGH with LOW < HIGH"):
        judgestat.load(SCORES, scale="10:1")


@pytest.mark.parametrize("command,path,keywords,message", [
    ("repeats", REPEATS, dict(invalid_match="yes"),
     r'^invalid_match \(--invalid-match\): expected true or false \(a switch\), got string "yes"$'),
    ("systems", WIN_RATES, dict(systems=["x.model_a", "x.model_b"], baseline=3),
     r"^baseline \(--baseline\): expected a string, got number 3$"),
    ("metrics", SCORES, dict(scale=10), r"^scale \(--scale\): expected a string, got number 10$"),
], ids=["repeats_switch", "systems_baseline", "metrics_scale"])
def test_a_wrong_typed_keyword_names_the_keyword(command, path, keywords, message):
    with pytest.raises(judgestat.UsageError, match=message):
        getattr(judgestat, command)(path, backend="cpu", **keywords)


def test_a_study_runs_repeats_systems_and_scale(tmp_path):
    study = tmp_path / "study.json"
    study.write_text(json.dumps({
        "settings": {"replicates": 200},
        "inputs": {"rep": REPEATS, "wr": WIN_RATES, "sc": SCORES},
        "analyses": [{"analysis": "repeats", "input": "rep"},
                     {"analysis": "systems", "input": "wr", "systems": ["x.model_a", "x.model_b"]},
                     {"analysis": "metrics", "input": "sc", "scale": "1:10"}]}))
    run = judgestat.run_study(study, tmp_path / "out", threads=1)
    assert run.computed == ["repeats_rep", "systems_wr", "metrics_sc"]
    for name, command, path, flags in [
            ("repeats_rep", "repeats", REPEATS, []),
            ("systems_wr", "systems", WIN_RATES, ["--systems", "x.model_a,x.model_b"]),
            ("metrics_sc", "metrics", SCORES, ["--scale", "1:10"])]:
        cli = run_cli(command, path, *flags, "--replicates", "200", "--threads", "1", "--format", "json", "--quiet")
        assert estimates(json.dumps(run.analysis(name))) == estimates(cli), name
    assert not any(math.isnan(e[-1]) for e in estimates(json.dumps(run.analysis("metrics_sc"))) if e[-1] is not None)
