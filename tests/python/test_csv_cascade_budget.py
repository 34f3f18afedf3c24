"""Issue 31, part 2, for cascade and budget: `--format csv` of `cascade` (sweep, rules, frozen τ,
the paper's bins, the gate against a second run), `budget` and `budget --compare` on the bundled
JudgeBench data load with pandas.read_csv as one table (one header, a `table` column naming each
row's table) whose estimates and CI ends are numeric columns, and whose numbers equal the JSON's."""
import io
import json
import subprocess

import pytest

from conftest import BINARY, JUDGEBENCH

pd = pytest.importorskip("pandas")

FIRST, FALLBACK = "Skywork_Skywork-Reward-Llama-3.1-8B", "o1-mini-2024-09-12"
FEES = ["--fee", f"{FIRST}=0", "--fee", f"{FALLBACK}=0.0076"]
CASCADE = ["cascade", JUDGEBENCH, "--first", FIRST, "--fallback", FALLBACK, *FEES, "--replicates", "200",
           "--latency", f"{FIRST}=0.4", "--latency", f"{FALLBACK}=2.5"]


def cli(*args):
    done = subprocess.run([BINARY, *args, "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def load(*args):
    text = cli(*args, "--format", "csv")
    assert text.count("\ntable,") == 0, "a second header"
    return pd.read_csv(io.StringIO(text))


def numeric(frame, column):
    assert column in frame.columns, f"{column} not in {list(frame.columns)}"
    assert pd.api.types.is_numeric_dtype(frame[column]), f"{column}: {frame[column].dtype}"


@pytest.mark.parametrize("extra", [[], ["--by", "benchmark", "--tau", "0.9", "--bins", "paper"],
                                   ["--tau", "0.9", "--compare-gate", JUDGEBENCH, "--select", "0"]])
def test_cascade_csv_is_one_numeric_table(extra):
    frame = load(*CASCADE, *extra)
    assert frame.columns[0] == "table"
    for column in ["escalated (%)", "escalated (%)_lo", "escalated (%)_hi", "cascade acc (%)", "cascade acc (%)_lo",
                   "cascade acc (%)_hi", "retained (%)", "latency p50 (s)", "latency p95 (s)"]:
        numeric(frame, column)
    sweep = frame[frame["table"] == "sweep"]
    assert len(sweep) > 0
    # The sweep's cascade accuracy at τ = all is the fallback alone, as the JSON gives it (in percent).
    report = json.loads(cli(*CASCADE, *extra, "--format", "json"))
    fallback = [row for row in report["statistics"] if row["name"] == "cascade_acc" and row["threshold"] == "all"
                and row.get("benchmark") is None][0]
    row = sweep[sweep["τ"].astype(str) == "all"].iloc[0]
    assert row["cascade acc (%)"] == pytest.approx(100 * fallback["estimate"], abs=0.05)
    assert row["cascade acc (%)_lo"] == pytest.approx(100 * fallback["ci"][0], abs=0.05)
    if "--tau" in extra:
        frozen = frame[frame["table"] == "frozen"]
        assert len(frozen) > 0
        numeric(frame, "first-stage errors caught (%)")
        assert set(frame["table"]) >= {"frozen", "frozen_split"}
    if "--bins" in extra:
        bins = frame[frame["table"] == "confidence_bins"]
        names = set(bins[f"{FIRST} confidence"].astype(str))
        assert len(bins) > 0 and names <= {"[0, 0.6)", "[0.6, 0.7)", "[0.7, 0.8)", "[0.8, 0.9)", "[0.9, 0.95)",
                                            "[0.95, 0.99)", "[0.99, 1)", "q = 1"}, names
        numeric(frame, "right or wrong together (%)")
    if "--compare-gate" in extra:
        gate = frame[frame["table"] == "gate_comparison"]
        assert gate["gated alike (%)"].iloc[0] == pytest.approx(100.0)


def test_budget_csv_is_one_numeric_table():
    args = ["budget", JUDGEBENCH, "--first", FIRST, "--fallback", FALLBACK, *FEES, "--k", "48,96", "--draws", "500"]
    frame = load(*args)
    for column in ["k", "draws", "P(loss > 2 pp) (%)", "median Δ (pp) (2.5–97.5 % range)",
                   "median Δ (pp) (2.5–97.5 % range)_lo", "median Δ (pp) (2.5–97.5 % range)_hi", "Δ p10 (pp)",
                   "median escalated (%)", "median fee ratio"]:
        numeric(frame, column)
    report = json.loads(cli(*args, "--format", "json"))
    for (_, row), summary in zip(frame.iterrows(), report["budget"]):
        assert row["P(loss > 2 pp) (%)"] == pytest.approx(100 * summary["loss_share"], abs=0.005)
        assert row["median Δ (pp) (2.5–97.5 % range)"] == pytest.approx(100 * summary["delta_q"][1], abs=0.005)
        assert row["Δ p10 (pp)"] == pytest.approx(100 * summary["delta_p10"], abs=0.005)


def test_budget_compare_csv_is_one_numeric_table():
    frame = load("budget", JUDGEBENCH, "--compare", f"Skywork_Skywork-Reward-Gemma-2-27B,{FALLBACK}", "--k",
                 "50,100", "--draws", "500")
    assert list(frame["table"].unique()) == ["budget_compare"]
    for column in ["k", "power (%)", "wrong sign (%)", "median d (2.5–97.5 % range)",
                   "median d (2.5–97.5 % range)_lo", "median d (2.5–97.5 % range)_hi"]:
        numeric(frame, column)
