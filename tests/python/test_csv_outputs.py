"""Issue 31, part 2: every command's `--format csv` on the bundled data, and every CSV a study writes,
loads with pandas.read_csv (one header per file) and has numeric columns for its numbers: estimates,
their CI ends, SEs, counts and percentages (as NAME_pct). Table::render("csv") splits "est (lo, hi)"
cells into NAME, NAME_lo, NAME_hi and "78.25 %" into NAME_pct; a command with several tables writes
them as one long table with a `table` column (csv_long, report.hpp)."""
import glob
import io
import json
import os
import subprocess

import pandas as pd
import pytest

from conftest import BINARY, JUDGEBENCH, LLMBAR, SOURCE_DIR

EXAMPLES = os.path.join(SOURCE_DIR, "data", "examples")
FIRST, FALLBACK = "Skywork_Skywork-Reward-Llama-3.1-8B", "o1-mini-2024-09-12"
FEE = f"{FIRST}=0,{FALLBACK}=0.0076"
QUICK = ["--replicates", "200"]

# (id, arguments)
COMMANDS = [
    ("metrics", ["metrics", JUDGEBENCH, *QUICK]),
    ("metrics_by", ["metrics", JUDGEBENCH, "--by", "benchmark", *QUICK]),
    ("cascade", ["cascade", JUDGEBENCH, "--first", FIRST, "--fallback", FALLBACK, "--fee", FEE, *QUICK]),
    ("budget", ["budget", JUDGEBENCH, "--first", FIRST, "--fallback", FALLBACK, "--fee", FEE, "--k", "48,96",
                "--draws", "500"]),
    ("budget_compare", ["budget", JUDGEBENCH, "--compare", f"Skywork_Skywork-Reward-Gemma-2-27B,{FALLBACK}",
                        "--k", "50,100", "--draws", "500"]),
    ("profile", ["profile", JUDGEBENCH, "--config", os.path.join(SOURCE_DIR, "configs", "judgebench.json"), *QUICK]),
    ("items", ["items", JUDGEBENCH]),
    ("repeats", ["repeats", os.path.join(EXAMPLES, "repeats.csv"), "--by", "variant", *QUICK]),
    ("systems", ["systems", os.path.join(EXAMPLES, "win_rates.csv"), "--systems", "x.model_a,x.model_b",
                 "--baseline", "mistral-7b", *QUICK]),
    ("scores", ["metrics", os.path.join(EXAMPLES, "score_judges.csv"), "--scale", "1:10", *QUICK]),
    ("llmbar_metrics", ["metrics", LLMBAR, "--by", "condition", *QUICK]),
]

# Columns that hold numbers wherever they appear.
NUMERIC = ("estimate", "ci_lo", "ci_hi", "se", "n", "undefined", "clusters", "k", "draws")


def numeric_columns(frame):
    """The columns that must be numeric: the known names, NAME_lo/NAME_hi/NAME_pct of split cells."""
    return [c for c in frame.columns
            if c in NUMERIC or c.endswith(("_lo", "_hi", "_pct")) or f"{c}_lo" in frame.columns]


def assert_loads_numeric(text, what):
    assert text.strip(), f"{what}: empty CSV"
    frame = pd.read_csv(io.StringIO(text))  # one header: a second table would raise or leave strings behind
    assert len(frame) > 0, what
    assert not any(str(c).startswith("Unnamed") for c in frame.columns), f"{what}: ragged rows {list(frame.columns)}"
    for column in numeric_columns(frame):
        if frame[column].notna().any():
            assert pd.api.types.is_numeric_dtype(frame[column]), \
                f"{what}: column {column!r} is {frame[column].dtype}: {frame[column].dropna().head(3).tolist()}"
    for column in frame.columns:  # no "est (lo, hi)" or "12.5 %" cell left anywhere
        if frame[column].dtype == object:
            cells = frame[column].dropna().astype(str)
            assert not cells.str.fullmatch(r"-?[0-9.]+ ?\(.*,.*\)").any(), f"{what}: {column!r} holds intervals"
            assert not cells.str.fullmatch(r"-?[0-9.]+ ?%").any(), f"{what}: {column!r} holds percentages"
    return frame


def cli(args):
    if not os.path.exists(BINARY):
        pytest.skip(f"SKIP: the judgestat binary {BINARY} was not built")
    done = subprocess.run([BINARY, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("args", [c[1] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_command_csv_loads_with_numeric_columns(args):
    as_csv = [] if args[0] == "items" else ["--format", "csv"]  # items writes CSV (or JSONL with --out x.jsonl)
    frame = assert_loads_numeric(cli([*args, *as_csv]), " ".join(args[:1]))
    if "estimate" in frame.columns:
        both = frame.dropna(subset=["estimate", "ci_lo", "ci_hi"]) if "ci_lo" in frame.columns else frame[:0]
        assert (both["ci_lo"] <= both["ci_hi"]).all()


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "report"
    cli(["run", os.path.join(SOURCE_DIR, "configs", "study_bundled.json"), "--out", str(out), "--replicates", "200",
         "--quiet"])
    return out


STUDY_ANALYSES = [a["name"] for a in json.load(open(os.path.join(SOURCE_DIR, "configs", "study_bundled.json")))["analyses"]]


@pytest.mark.parametrize("name", STUDY_ANALYSES)
@pytest.mark.parametrize("file", ["tables.csv", "statistics.csv", "budget.csv"])
def test_study_csv_files_load_with_numeric_columns(study_folder, name, file):
    path = study_folder / name / file
    if not path.exists():
        pytest.skip(f"{name} writes no {file}")
    assert_loads_numeric(path.read_text(), f"{name}/{file}")


def test_study_figure_data_load_with_numeric_columns(study_folder):
    figures = [p for p in glob.glob(str(study_folder / "*" / "*.csv"))
               if os.path.basename(p) not in ("tables.csv", "statistics.csv", "budget.csv")]
    assert figures
    for path in figures:
        frame = pd.read_csv(path)
        assert len(frame.columns) > 0, path
