"""Every analysis from Python: a DataFrame gives the file's result, .to_json() is the CLI's --json
byte for byte (minus argv and timing), .replicates() is --save-replicates."""
import csv
import os
import tempfile

import numpy as np
import pandas as pd
import pytest

from conftest import JUDGEBENCH, LLMBAR, SOURCE_DIR, run_cli, without_argv_and_timing, without_input

judgestat = pytest.importorskip("judgestat")

FIRST, FALLBACK = "Skywork_Skywork-Reward-Llama-3.1-8B", "o1-mini-2024-09-12"
FEES = {FIRST: 0, FALLBACK: 0.0076}

# (id, command, records, keyword arguments, the same as CLI flags)
ANALYSES = [
    ("metrics", "metrics", JUDGEBENCH, dict(replicates=500), ["--replicates", "500"]),
    ("metrics_by_bca", "metrics", JUDGEBENCH,
     dict(replicates=400, by="benchmark", ci="bca", diff=["acc", "pa", "brier"], pairs="all"),
     ["--replicates", "400", "--by", "benchmark", "--ci", "bca", "--diff", "acc,pa,brier", "--pairs", "all"]),
    ("metrics_llmbar_raters", "metrics", LLMBAR,
     dict(replicates=300, reference="GPT-4/Vanilla", raters=["ChatGPT/Vanilla", "GPT-4/Vanilla", "PaLM2/Vanilla"]),
     ["--replicates", "300", "--reference", "GPT-4/Vanilla", "--raters", "ChatGPT/Vanilla,GPT-4/Vanilla,PaLM2/Vanilla"]),
    # JEV App. I: a second confidence per record in a covariate (NaN in a DataFrame where a record has none).
    ("metrics_native_confidence", "metrics", os.path.join(SOURCE_DIR, "data", "examples", "jev_native.csv"),
     dict(replicates=300, by="benchmark", native_confidence="x.native"),
     ["--replicates", "300", "--by", "benchmark", "--native-confidence", "x.native"]),
    ("cascade", "cascade", JUDGEBENCH, dict(first=FIRST, fallback=FALLBACK, fee=FEES, replicates=300),
     ["--first", FIRST, "--fallback", FALLBACK, "--fee", f"{FIRST}=0", "--fee", f"{FALLBACK}=0.0076",
      "--replicates", "300"]),
    ("budget", "budget", JUDGEBENCH, dict(first=FIRST, fallback=FALLBACK, k=[48, 96], draws=2000, per_stratum=True),
     ["--first", FIRST, "--fallback", FALLBACK, "--k", "48,96", "--draws", "2000", "--per-stratum"]),
    ("budget_compare", "budget", JUDGEBENCH,
     dict(compare=["Skywork_Skywork-Reward-Gemma-2-27B", FALLBACK], k=[50, 100], draws=1000),
     ["--compare", f"Skywork_Skywork-Reward-Gemma-2-27B,{FALLBACK}", "--k", "50,100", "--draws", "1000"]),
    ("profile", "profile", JUDGEBENCH, dict(config=os.path.join(SOURCE_DIR, "configs", "judgebench.json"),
                                            replicates=300),
     ["--config", os.path.join(SOURCE_DIR, "configs", "judgebench.json"), "--replicates", "300"]),
]
IDS = [a[0] for a in ANALYSES]


def call(command, records, options):
    return getattr(judgestat, command)(records, backend="cpu", **options)


@pytest.mark.parametrize("name,command,path,options,flags", ANALYSES, ids=IDS)
def test_to_json_is_the_cli_json(name, command, path, options, flags):
    result = call(command, path, options)
    cli = run_cli(command, path, *flags, "--backend", "cpu", "--format", "json", "--quiet")
    assert without_argv_and_timing(result.to_json()) == without_argv_and_timing(cli)


@pytest.mark.parametrize("name,command,path,options,flags", ANALYSES, ids=IDS)
def test_dataframe_result_equals_the_file_result(name, command, path, options, flags):
    from_file = call(command, path, options)
    from_frame = call(command, pd.read_csv(path), options)
    assert without_input(from_frame.to_json()) == without_input(from_file.to_json())
    pd.testing.assert_frame_equal(from_frame.statistics, from_file.statistics)
    assert from_frame.csv == from_file.csv


def test_items_rows_equal_the_cli_csv():
    result = judgestat.items(pd.read_csv(JUDGEBENCH), disagree=True)
    cli = pd.read_csv(tempfile_with(run_cli("items", JUDGEBENCH, "--disagree", "--quiet")), keep_default_na=False,
                      dtype=str)
    assert result.csv == judgestat.items(JUDGEBENCH, disagree=True).csv
    assert list(result.items.columns) == list(cli.columns)
    assert len(result.items) == len(cli) == 228
    assert result.items["item"].astype(str).tolist() == cli["item"].tolist()


def tempfile_with(text):
    handle = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    handle.write(text)
    handle.close()
    return handle.name


@pytest.mark.parametrize("command,options,flags", [
    ("metrics", dict(replicates=300, judges=[FALLBACK, FIRST]), ["--replicates", "300", "--judges", f"{FALLBACK},{FIRST}"]),
    ("profile", dict(config=os.path.join(SOURCE_DIR, "configs", "judgebench.json"), replicates=200),
     ["--config", os.path.join(SOURCE_DIR, "configs", "judgebench.json"), "--replicates", "200"]),
], ids=["metrics", "profile"])
def test_replicates_equal_save_replicates(command, options, flags, tmp_path):
    result = call(command, pd.read_csv(JUDGEBENCH), dict(options, keep_replicates=True))
    saved = tmp_path / "replicates.csv"
    run_cli(command, JUDGEBENCH, *flags, "--backend", "cpu", "--save-replicates", saved, "--quiet")
    # Exact parsing (round_trip), and the header read as it is (profile repeats some names).
    with open(saved) as header:
        columns = next(csv.reader(header))
    expected = pd.read_csv(saved, header=None, skiprows=1, float_precision="round_trip", names=range(len(columns)))
    table = result.replicate_table()
    assert list(table.columns) == columns
    np.testing.assert_array_equal(table.to_numpy(), expected.to_numpy(dtype=float))
    expected.columns = columns
    if command == "metrics":
        pa = result.replicates("pa", judge=FALLBACK)
        np.testing.assert_array_equal(pa, expected[f"pa|judge={FALLBACK}"].to_numpy(dtype=float))
        acc1 = result.replicates("acc", judge=FIRST, order=1)
        np.testing.assert_array_equal(acc1, expected[f"acc|judge={FIRST}|order=1"].to_numpy(dtype=float))
        # The estimate is the statistic on the data; the replicates scatter around it.
        row = result.statistics.query("name == 'pa' and judge == @FALLBACK").iloc[0]
        assert abs(np.nanmean(pa) - row["estimate"]) < 4 * row["se"]
        assert np.nanstd(pa, ddof=1) == pytest.approx(row["se"], rel=1e-12)


def test_statistics_frame_columns_and_values():
    result = judgestat.metrics(JUDGEBENCH, replicates=300, judges=[FALLBACK], backend="cpu")
    frame = result.statistics
    assert list(frame.columns[:17]) == ["name", "judge", "reference", "of", "benchmark", "condition", "order",
                                        "variant", "label", "position", "threshold", "n", "estimate", "ci_lo",
                                        "ci_hi", "se", "undefined"]
    # pa of o1-mini on the bundled JudgeBench split is 0.7271 (README "The two commands").
    pa = frame.query("name == 'pa'").iloc[0]
    records = pd.read_csv(JUDGEBENCH)
    mine = records[records["judge"] == FALLBACK]
    assert pa["estimate"] == pytest.approx((mine["verdict"] == mine["gold"]).mean(), abs=1e-15)
    assert pa["ci_lo"] < pa["estimate"] < pa["ci_hi"]
    acc0 = frame.query("name == 'acc' and order == 0").iloc[0]
    assert acc0["n"] == 350


def test_other_tables_are_dataframes():
    metrics = judgestat.metrics(JUDGEBENCH, replicates=200, backend="cpu")
    assert list(metrics.validity["judge"]) == judgestat.load(JUDGEBENCH).judges
    assert isinstance(metrics.reliability, pd.DataFrame) and "ece" in metrics.reliability.columns
    budget = judgestat.budget(JUDGEBENCH, first=FIRST, fallback=FALLBACK, k=[48, 96], draws=500, backend="cpu")
    assert sorted(set(budget.budget["k"])) == [48, 96]
    assert budget.budget["draws"].tolist() == [500] * len(budget.budget)
    cascade = judgestat.cascade(JUDGEBENCH, first=FIRST, fallback=FALLBACK, replicates=200, backend="cpu")
    assert isinstance(cascade.rules, pd.DataFrame) and len(cascade.rules) == len(cascade.json["rules"])
    profile = judgestat.profile(JUDGEBENCH, config=os.path.join(SOURCE_DIR, "configs", "judgebench.json"),
                                replicates=200, backend="cpu")
    assert set(profile.coverage["condition"]) >= {"C1", "overall"}
    # Several lists of rows (between_conditions, condition_summary, …): .spearman is a dict of tables.
    between = profile.spearman["between_conditions"]
    assert isinstance(between, pd.DataFrame) and {"rho", "pearson_r"} <= set(between.columns)
    assert len(between) == len(profile.json["spearman"]["between_conditions"])
    assert list(profile.spearman["condition_summary"]["mean_abs_rho"]) == [
        row["mean_abs_rho"] for row in profile.json["spearman"]["condition_summary"]]
    assert "<table" in profile._repr_html_() and "judgestat profile" in profile._repr_html_()
    with pytest.raises(AttributeError, match="has no table 'nonesuch'"):
        profile.nonesuch


def test_keywords_are_checked_by_the_cli_parser():
    with pytest.raises(TypeError, match="unexpected keyword argument 'replicatez'"):
        judgestat.metrics(JUDGEBENCH, replicatez=10)
    with pytest.raises(TypeError, match="keyword 'json' is an output flag"):
        judgestat.metrics(JUDGEBENCH, json="out.json")
    with pytest.raises(ValueError, match=r"^ci \(--ci\)"):
        judgestat.metrics(JUDGEBENCH, ci="nope")
    with pytest.raises(ValueError, match="judge 'nobody' does not occur"):
        judgestat.metrics(JUDGEBENCH, judges=["nobody"])


def test_progress_callable_sees_every_chunk():
    seen = []
    judgestat.metrics(JUDGEBENCH, replicates=2000, judges=[FALLBACK], backend="cpu",
                      progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (2000, 2000)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_progress_true_drives_tqdm_when_installed(monkeypatch):
    import sys
    import types
    bars = []

    class FakeBar:  # tqdm.tqdm's interface as _progress_bar uses it
        def __init__(self, total, desc, unit):
            self.total, self.desc, self.n, self.closed = total, desc, 0, False
            bars.append(self)

        def update(self, step):
            self.n += step

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeBar))
    judgestat.metrics(JUDGEBENCH, replicates=3000, judges=[FALLBACK], backend="cpu", chunk=500, progress=True)
    assert len(bars) == 1 and bars[0].total == 3000 and bars[0].n == 3000 and bars[0].closed
    assert bars[0].desc == "judgestat metrics"
    # Without progress nothing is shown.
    judgestat.metrics(JUDGEBENCH, replicates=300, judges=[FALLBACK], backend="cpu")
    assert len(bars) == 1


# Keywords reach the library typed: a value of the wrong type is an error naming the keyword (and
# its flag), never text parsed again; a value of the right type that the option refuses says why
# as the CLI's flag would.
@pytest.mark.parametrize("command,keywords,message", [
    ("metrics", dict(replicates="10"), r'^replicates \(--replicates\): expected a whole number .*got string "10"$'),
    ("metrics", dict(replicates=-5), r"^replicates \(--replicates\): expected a whole number .*got number -5$"),
    ("metrics", dict(level="0.9"), r'^level \(--level\): expected a number, got string "0.9"$'),
    ("metrics", dict(level=2), r"^level \(--level\): expected 0 < level < 1$"),
    ("metrics", dict(order=1.5), r"^order \(--order\): expected a whole number, got number 1.5$"),
    ("metrics", dict(hard="yes"), r'^hard \(--hard\): expected true or false \(a switch\), got string "yes"$'),
    ("metrics", dict(by=False), r"^by \(--by\): expected a string, got boolean false$"),
    ("metrics", dict(judges=[1, 2]), r"^judges \(--judges\): expected a list of strings .*got array \[1,2\]$"),
    ("metrics", dict(fee={FALLBACK: "0.01"}), rf"^fee \(--fee\): expected a number for judge '{FALLBACK}', got"),
    ("metrics", dict(fee={FALLBACK: -1}), rf"^fee \(--fee\): '-1' for {FALLBACK} is not a non-negative number$"),
    ("metrics", dict(seed={1, 2}), r"^seed \(--seed\): expected a bool, int, float, str, path, list or dict, got set$"),
    ("budget", dict(first=FIRST, fallback=FALLBACK, k=[48, 9.5]), r"^k \(--k\): expected a list of whole numbers"),
    ("cascade", dict(first=FIRST, fallback=5), r"^fallback \(--fallback\): expected a string, got number 5$"),
], ids=["replicates_str", "replicates_negative", "level_str", "level_2", "order_float", "switch_str", "false_value",
        "judges_ints", "fee_str", "fee_negative", "seed_set", "k_float", "fallback_int"])
def test_a_wrong_typed_keyword_names_the_keyword(command, keywords, message):
    with pytest.raises(judgestat.UsageError, match=message):
        getattr(judgestat, command)(JUDGEBENCH, backend="cpu", **keywords)


def test_typed_keywords_equal_their_cli_text():
    """numpy integers, tuples, paths and a comma-separated string are the same options as the CLI's
    flags: the same JSON as the command with them."""
    import pathlib
    config = pathlib.Path(SOURCE_DIR) / "configs" / "judgebench.json"
    result = judgestat.profile(JUDGEBENCH, config=config, replicates=np.int64(200), judges=(FALLBACK, FIRST),
                               backend="cpu")
    cli = run_cli("profile", JUDGEBENCH, "--config", config, "--replicates", "200", "--judges",
                  f"{FALLBACK},{FIRST}", "--backend", "cpu", "--format", "json", "--quiet")
    assert without_argv_and_timing(result.to_json()) == without_argv_and_timing(cli)
    budget = judgestat.budget(JUDGEBENCH, compare=f"Skywork_Skywork-Reward-Gemma-2-27B,{FALLBACK}", k=(50, 100),
                              draws=300, backend="cpu")
    cli = run_cli("budget", JUDGEBENCH, "--compare", f"Skywork_Skywork-Reward-Gemma-2-27B,{FALLBACK}", "--k", "50,100",
                  "--draws", "300", "--backend", "cpu", "--format", "json", "--quiet")
    assert without_argv_and_timing(budget.to_json()) == without_argv_and_timing(cli)
