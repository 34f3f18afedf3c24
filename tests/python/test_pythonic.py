"""Issue 31 §4, Python that feels like Python: explicit signatures that list exactly the request
layer's options (checked against the library's flag list and the CLI's --help, two sources the
signatures are not built from), scipy's names as aliases, dir() showing the API only, flat result
tables whose values are the CLI's JSON's, and a notebook display that tells rows apart and
leaves missing values blank."""
import inspect
import os
import pydoc
import re
import subprocess
import typing

import pandas as pd
import pytest

from conftest import BINARY, JUDGEBENCH, LLMBAR, SOURCE_DIR, run_cli, without_argv_and_timing

judgestat = pytest.importorskip("judgestat")
from judgestat import _judgestat  # noqa: E402  (the compiled half: the library's own flag list)

FIRST, FALLBACK = "Skywork_Skywork-Reward-Llama-3.1-8B", "o1-mini-2024-09-12"
FEES = {FIRST: 0, FALLBACK: 0.0076}
EXAMPLES = os.path.join(SOURCE_DIR, "data", "examples")
COMMANDS = ["metrics", "cascade", "budget", "profile", "items", "repeats", "systems"]
OUTPUT_FLAGS = {"format", "json", "save-replicates", "quiet", "plots", "out"}
PYTHON_ONLY = {"metrics": {"progress", "keep_replicates"}, "cascade": {"progress", "keep_replicates"},
               "budget": {"progress"}, "profile": {"progress", "keep_replicates"}, "items": set(),
               "repeats": {"progress", "keep_replicates"}, "systems": {"progress", "keep_replicates"}}


def keyword(flag):
    return flag.replace("-", "_")


def cli_help_flags(command):
    """The long flags `judgestat COMMAND --help` lists (budget's -k and -z by their letter)."""
    done = subprocess.run([BINARY, command, "--help"], capture_output=True, text=True)
    text = done.stdout + done.stderr
    flags = set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z0-9-]*)", text, flags=re.M))
    flags |= set(re.findall(r"^\s+-([a-z])(?:\s|$)", text, flags=re.M))
    return flags - {"help", "file", "files"}


def test_commands_are_the_request_layers():
    assert sorted(_judgestat.commands()) == sorted(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_signature_lists_every_request_option_and_nothing_else(command):
    signature = inspect.signature(getattr(judgestat, command))
    names = list(signature.parameters)
    assert names[0] == "records"
    accepted = {keyword(f) for f in _judgestat.flags(command) if f not in OUTPUT_FLAGS}
    aliases = {a for a, f in [("n_resamples", "replicates"), ("confidence_level", "level")] if f in accepted}
    assert set(names[1:]) == accepted | aliases | PYTHON_ONLY[command]
    # The CLI's own --help agrees (another source than the table the signature is built from).
    assert {keyword(f) for f in cli_help_flags(command) - OUTPUT_FLAGS} == accepted
    for name in names[1:]:
        assert signature.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("command", COMMANDS)
def test_every_parameter_has_a_numpydoc_entry(command):
    function = getattr(judgestat, command)
    doc = function.__doc__
    assert "\nParameters\n----------\n" in doc and "\nReturns\n-------\n" in doc
    entries = re.findall(r"^([a-z_][a-z0-9_, ]*) : (.+)$", doc, flags=re.M)
    documented = {n.strip() for names, _ in entries for n in names.split(",")}
    assert documented == set(inspect.signature(function).parameters)
    # help() shows the signature and the entries.
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)
    assert "records" in text and "keep_replicates" in text or command in ("budget", "items")
    for name in inspect.signature(function).parameters:
        assert name in text


def test_parameters_are_typed_as_the_request_layer_reads_them():
    metrics = inspect.signature(judgestat.metrics).parameters
    assert metrics["replicates"].annotation == typing.Optional[int]
    assert metrics["level"].annotation == typing.Optional[float]
    assert metrics["hard"].annotation is bool and metrics["hard"].default is False
    assert metrics["judges"].annotation == typing.Optional[typing.Union[str, typing.Sequence[str]]]
    assert metrics["fee"].annotation == typing.Optional[typing.Mapping[str, float]]
    assert metrics["order"].annotation == typing.Optional[int]
    assert metrics["replicates"].default is None
    budget = inspect.signature(judgestat.budget).parameters
    assert budget["k"].annotation == typing.Optional[typing.Union[str, typing.Sequence[int]]]
    cascade = inspect.signature(judgestat.cascade).parameters
    assert cascade["grid"].annotation == typing.Optional[typing.Union[str, typing.Sequence[float]]]
    # The docstring gives the CLI's default where the signature says None.
    assert re.search(r"^replicates, n_resamples : int, optional\n .*default: 10000 \(--replicates\)",
                     judgestat.metrics.__doc__, flags=re.M)


def test_option_types_agree_with_what_each_reader_refuses():
    """An option typed `int` refuses a string, one typed as a list takes a list: the types
    come from how the readers read, so a value of the annotated type is accepted."""
    table = {o["name"]: o["type"] for o in _judgestat.option_table("metrics")}
    assert table["replicates"] == "whole" and table["order"] == "integer" and table["level"] == "number"
    assert table["diff"] == "words" and table["fee"] == "per_judge" and table["hard"] == "switch"
    assert {o["name"] for o in _judgestat.option_table("metrics") if o["output"]} == {
        "format", "json", "save-replicates", "quiet", "plots"}


@pytest.mark.parametrize("typo,nearest", [("replicate", "replicates"), ("judge", "judges"),
                                          ("confidence", "confidence_level"), ("refernce", "reference")])
def test_an_unknown_keyword_names_the_nearest_parameter(typo, nearest):
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{typo}'; did you mean '{nearest}'\?"):
        judgestat.metrics(JUDGEBENCH, **{typo: 1})


def test_an_output_flag_says_where_the_output_is():
    with pytest.raises(TypeError, match="keyword 'plots' is an output flag"):
        judgestat.metrics(JUDGEBENCH, plots="figures")


def test_scipy_names_are_aliases():
    mine = judgestat.metrics(JUDGEBENCH, judges=[FALLBACK], replicates=300, level=0.9, backend="cpu")
    scipy = judgestat.metrics(JUDGEBENCH, judges=[FALLBACK], n_resamples=300, confidence_level=0.9, backend="cpu")
    assert without_argv_and_timing(scipy.to_json()) == without_argv_and_timing(mine.to_json())
    assert scipy.json["argv"] == mine.json["argv"]
    assert scipy.settings["replicates"] == 300 and scipy.settings["level"] == 0.9
    with pytest.raises(TypeError, match="give replicates or n_resamples"):
        judgestat.metrics(JUDGEBENCH, replicates=300, n_resamples=300)
    with pytest.raises(TypeError, match="give level or confidence_level"):
        judgestat.profile(JUDGEBENCH, level=0.9, confidence_level=0.9)
    assert "n_resamples" not in inspect.signature(judgestat.items).parameters


def test_dir_shows_the_api_only():
    shown = dir(judgestat)
    assert set(shown) == set(judgestat.__all__) | {"__version__"}
    for module in ("os", "json", "time", "re", "np", "pd"):
        assert module not in shown
    for name in judgestat.__all__:
        assert getattr(judgestat, name) is not None


def study_results():
    """Every analysis kind on the bundled data with few replicates and draws."""
    judgebench_config = os.path.join(SOURCE_DIR, "configs", "judgebench.json")
    llmbar_judges = ["ChatGPT/Vanilla", "GPT-4/Vanilla", "PaLM2/Vanilla"]
    run = dict(backend="cpu")
    return {
        "metrics": judgestat.metrics(JUDGEBENCH, replicates=100, by="benchmark", **run),
        "metrics_llmbar": judgestat.metrics(LLMBAR, replicates=100, judges=llmbar_judges, raters=llmbar_judges,
                                            reference="GPT-4/Vanilla", by="condition", **run),
        "cascade": judgestat.cascade(JUDGEBENCH, first=FIRST, fallback=FALLBACK, fee=FEES, by="benchmark",
                                     select=0.4, replicates=100, **run),
        "cascade_tau": judgestat.cascade(JUDGEBENCH, first=FIRST, fallback=FALLBACK, tau="all", replicates=100, **run),
        "cascade_per_stratum": judgestat.cascade(JUDGEBENCH, first=FIRST, fallback=FALLBACK, by="benchmark",
                                                 per_stratum=True, select=0.4, replicates=100, **run),
        "budget": judgestat.budget(JUDGEBENCH, first=FIRST, fallback=FALLBACK, fee=FEES, k=[48, 96], draws=300,
                                   per_stratum=True, **run),
        "budget_compare": judgestat.budget(JUDGEBENCH, compare=["Skywork_Skywork-Reward-Gemma-2-27B", FALLBACK],
                                           k=[50, 100], draws=300, **run),
        "profile": judgestat.profile(JUDGEBENCH, config=judgebench_config, replicates=100, **run),
        "items": judgestat.items(JUDGEBENCH, judges=[FALLBACK, FIRST], disagree=True),
        "repeats": judgestat.repeats(os.path.join(EXAMPLES, "repeats.csv"), replicates=100, by="variant", **run),
        "systems": judgestat.systems(os.path.join(EXAMPLES, "win_rates.csv"), systems=["x.model_a", "x.model_b"],
                                     replicates=100, **run),
    }


@pytest.fixture(scope="module")
def results():
    return study_results()


def frames_of(result):
    """Every DataFrame a result gives: .statistics, .items and each table (dicts of them too)."""
    frames = {"statistics": result.statistics}
    if result.command == "items":
        frames["items"] = result.items
    for name, table in result.tables.items():
        for key, frame in (table.items() if isinstance(table, dict) else [(None, table)]):
            frames[f"{name}[{key}]" if key else name] = frame
    return frames


def test_every_table_of_every_analysis_is_flat(results):
    for analysis, result in results.items():
        for name, frame in frames_of(result).items():
            assert isinstance(frame, pd.DataFrame), (analysis, name)
            for column in frame.columns:
                nested = [v for v in frame[column] if isinstance(v, (list, dict, tuple, set))]
                assert not nested, f"{analysis}.{name}.{column} holds {nested[:1]}"
                if column == "tau" or column.startswith("tau_") and not column.endswith("_label"):
                    assert pd.api.types.is_numeric_dtype(frame[column]), f"{analysis}.{name}.{column}"


def test_tau_is_numeric_with_all_as_its_label(results):
    """A rule's tau is a number, or NaN with tau_label 'all' where the JSON says 'all'."""
    result = results["cascade"]
    rules = result.rules
    assert pd.api.types.is_numeric_dtype(rules["tau"])
    for row, rule in zip(rules.itertuples(), result.json["rules"]):
        if rule["tau"] == "all":
            assert row.tau != row.tau and row.tau_label == "all"
        else:
            assert row.tau == rule["tau"] and ("tau_label" not in rules.columns or pd.isna(row.tau_label))


def test_confusion_is_long_with_the_records_counts(results):
    """One row per (judge, gold, verdict) cell; the counts are the records' own (order 0)."""
    confusion = results["metrics"].confusion
    pooled = confusion[confusion["benchmark"].isna()] if "benchmark" in confusion.columns else confusion
    records = pd.read_csv(JUDGEBENCH)
    order0 = records[records["order"] == 0]
    for judge, cells in pooled.groupby("judge"):
        mine = order0[order0["judge"] == judge]
        expected = pd.crosstab(mine["gold"], mine["verdict"])
        for row in cells.itertuples():
            count = expected.loc[row.gold, row.verdict] if row.verdict in expected.columns else 0
            assert row.count == count, (judge, row.gold, row.verdict)
        assert cells["count"].sum() == len(mine)


def test_tables_hold_the_cli_json_values():
    """The flat tables' values are the CLI's --json document's, cell for cell."""
    import json
    options = ["--first", FIRST, "--fallback", FALLBACK, "--fee", f"{FIRST}=0", "--fee", f"{FALLBACK}=0.0076",
               "--select", "0.4", "--replicates", "100", "--backend", "cpu"]
    cli = json.loads(run_cli("cascade", JUDGEBENCH, *options, "--format", "json", "--quiet"))
    result = judgestat.cascade(JUDGEBENCH, first=FIRST, fallback=FALLBACK, fee=FEES, select=0.4, replicates=100,
                               backend="cpu")
    heldout = result.rules_heldout_statistics
    expected = [(rule["rule"], s["name"], s["estimate"], s["ci"][0], s["ci"][1])
                for rule in cli["rules"] for s in rule["heldout"]["statistics"]]
    assert len(expected) > 0
    got = list(zip(heldout["rule"], heldout["name"], heldout["estimate"], heldout["ci_lo"], heldout["ci_hi"]))
    assert got == expected
    assert list(result.rules["rule"]) == [rule["rule"] for rule in cli["rules"]]
    stats = result.statistics
    assert list(stats["estimate"]) == [s["estimate"] for s in cli["statistics"]]
    assert list(stats["ci_hi"]) == [s["ci"][1] for s in cli["statistics"]]


def test_display_tells_rows_apart_and_leaves_blanks(results):
    result = judgestat.metrics(JUDGEBENCH, judges=[FALLBACK, FIRST], replicates=100, backend="cpu")
    html = result._repr_html_()
    header = re.findall(r"<th>([^<]*)</th>", html)
    frame = result.statistics
    for column in ("of", "position", "reference", "order"):
        assert frame[column].notna().any()
        assert column in header, column
    assert not re.search(r"<td>(None|nan|NaN|<NA>)</td>", html)
    text = repr(result)
    assert "None" not in text and "nan" not in text.lower().replace("judgestat", "")
    # The diff rows of acc, pa and bc differ in what the display shows.
    shown = result._shown_statistics()
    diffs = shown[shown["name"] == "diff"]
    assert len(diffs) >= 3 and not diffs.duplicated().any()
    assert not shown.drop(columns=["estimate", shown.columns[shown.columns.str.endswith("CI")][0]]).duplicated().any()
    for analysis, other in results.items():
        assert not re.search(r"<td>(None|nan|NaN|<NA>)</td>", other._repr_html_()), analysis
