"""judgestat.load: a path, a DataFrame and a dict of arrays give the same ItemMatrix as the
file (docs/statistics.md §1), and bad DataFrames raise naming the row and column."""
import io
import math

import numpy as np
import pandas as pd
import pytest

from conftest import JUDGEBENCH, LLMBAR

judgestat = pytest.importorskip("judgestat")


def same_matrix(a, b):
    for field in ["judges", "items", "labels", "clusters", "benchmarks", "conditions", "variants", "orders",
                  "records", "invalid"]:
        assert getattr(a, field) == getattr(b, field), field
    pd.testing.assert_frame_equal(a.validity, b.validity)
    assert a.columns_given == b.columns_given


def small_frame(**changes):
    """Two judges, two items, both orders; probabilities for judge b."""
    rows = {
        "judge": ["a", "a", "a", "a", "b", "b", "b", "b"],
        "item": ["i1", "i1", "i2", "i2", "i1", "i1", "i2", "i2"],
        "order": [0, 1, 0, 1, 0, 1, 0, 1],
        "gold": ["A", "A", "B", "B", "A", "A", "B", "B"],
        "verdict": ["A", "B", "B", "B", "A", "A", "A", "B"],
        "p.A": [np.nan] * 4 + [0.9, 0.8, 0.6, 0.3],
        "p.B": [np.nan] * 4 + [0.1, 0.2, 0.4, 0.7],
    }
    rows.update(changes)
    return pd.DataFrame(rows, index=[f"r{k}" for k in range(8)])


def test_path_counts_match_an_independent_read():
    m = judgestat.load(JUDGEBENCH)
    frame = pd.read_csv(JUDGEBENCH, dtype=str, keep_default_na=False)
    assert m.records == len(frame) == 4200
    assert m.judges == list(dict.fromkeys(frame["judge"]))
    assert m.items == list(dict.fromkeys(frame["item"]))
    assert m.labels == ["A", "B"]
    assert m.orders == 2
    # An empty cluster is the item itself (docs/statistics.md §1).
    clusters = [c if c else i for c, i in zip(frame["cluster"], frame["item"])]
    assert m.clusters == list(dict.fromkeys(clusters))
    assert len(m.sha256) == 64
    assert m.validity["records"].tolist() == [700] * 6


@pytest.mark.parametrize("path", [JUDGEBENCH, LLMBAR])
def test_read_csv_frame_equals_the_file(path):
    same_matrix(judgestat.load(pd.read_csv(path)), judgestat.load(path))


def test_dict_of_arrays_and_string_dtypes_equal_the_file():
    frame = pd.read_csv(JUDGEBENCH)
    arrays = {name: frame[name].to_numpy() for name in frame.columns}
    same_matrix(judgestat.load(arrays), judgestat.load(JUDGEBENCH))
    typed = frame.astype({"judge": "category", "benchmark": "category", "item": "string", "verdict": "string"})
    same_matrix(judgestat.load(typed), judgestat.load(JUDGEBENCH))


def test_integer_ids_are_their_decimal_text():
    frame = small_frame(item=[1, 1, 2, 2, 1, 1, 2, 2], cluster=[7.0, 7.0, np.nan, np.nan, 7.0, 7.0, np.nan, np.nan])
    m = judgestat.load(frame)
    assert m.items == ["1", "2"]
    assert m.clusters == ["7", "2"]  # an empty cluster is the item


def test_probs_column_of_dicts_equals_p_columns():
    frame = small_frame()
    probs = [None if math.isnan(a) else {"A": a, "B": b} for a, b in zip(frame["p.A"], frame["p.B"])]
    as_dicts = frame.drop(columns=["p.A", "p.B"]).assign(probs=probs)
    same_matrix(judgestat.load(as_dicts), judgestat.load(frame))
    assert judgestat.load(as_dicts).columns_given["probabilities"]


def test_nan_means_an_empty_field():
    # verdict NaN: given but invalid; probabilities NaN: not given; benchmark NaN: "default".
    frame = small_frame(verdict=["A", None, "B", "B", "A", "A", "A", "B"],
                        benchmark=["x", "x", np.nan, np.nan, "x", "x", np.nan, np.nan])
    m = judgestat.load(frame)
    assert m.invalid == 1
    assert m.benchmarks == ["x", "default"]
    assert m.validity.set_index("judge").loc["a", "invalid"] == 1


@pytest.mark.parametrize("bad", [math.inf, -math.inf])
def test_infinite_probability_makes_the_record_invalid(bad):
    frame = small_frame()
    frame.loc["r4", "p.A"] = bad
    m = judgestat.load(frame)
    assert m.invalid == 1
    assert m.validity.set_index("judge").loc["b", "invalid"] == 1
    # The file gives the same count for "inf".
    text = frame.to_csv(index=False)
    assert "inf" in text
    with open_csv(text) as path:
        assert judgestat.load(path).invalid == 1


class open_csv:
    def __init__(self, text):
        import tempfile
        self.file = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
        self.file.write(text)
        self.file.close()

    def __enter__(self):
        return self.file.name

    def __exit__(self, *exc):
        import os
        os.unlink(self.file.name)


@pytest.mark.parametrize("column", ["judge", "item"])
def test_missing_id_names_the_row_and_column(column):
    frame = small_frame()
    frame.loc["r5", column] = None
    with pytest.raises(ValueError, match=rf"^DataFrame row 'r5': column '{column}': expected a non-empty value"):
        judgestat.load(frame)


def test_gold_is_optional():
    """docs/statistics.md §8.1: no gold column, or None for every record of an item, is an item
    without gold (not invalid); the labels then come from the verdicts too."""
    with_gold = judgestat.load(small_frame())
    without = judgestat.load(small_frame().drop(columns=["gold"]))
    assert without.items == with_gold.items and without.invalid == with_gold.invalid
    assert without.labels == ["A", "B"]  # probability labels, then the verdicts' (none new)
    none_on_i2 = judgestat.load(small_frame(gold=["A", "A", None, None, "A", "A", None, None]))
    assert none_on_i2.records == 8 and none_on_i2.invalid == 0
    # gold on one record of an item and none on another is bad input naming the row
    frame = small_frame()
    frame.loc["r5", "gold"] = None
    with pytest.raises(ValueError, match=r"^DataFrame row 'r5': column 'gold': item \"i1\" has no gold here but "
                                         r"gold \"A\" on row 'r0'"):
        judgestat.load(frame)


# docs/statistics.md §1's bad input, each naming the DataFrame's index label and the column.
BAD_FRAMES = [
    ("order", {"order": [0, 1, 0, "x", 0, 1, 0, 1]}, r"row 'r3': column 'order': expected a non-negative integer"),
    ("order range", {"order": [0, 1, 0, 5000, 0, 1, 0, 1]}, r"row 'r3': column 'order': expected a presentation"),
    ("probability text", {"p.A": ["", "", "", "", "0.9", "high", "0.6", "0.3"]},
     r"row 'r5': column 'p.A': expected a probability"),
    ("fee", {"fee_usd": [0.1, 0.1, -1.0, 0.1, 0.1, 0.1, 0.1, 0.1]},
     r"row 'r2': column 'fee_usd': expected a non-negative number"),
    ("flag", {"flag": [0, 0, 0, 0, 2, 0, 0, 0]}, r"row 'r4': column 'flag': expected 1 or 0"),
    ("gold differs", {"gold": ["A", "B", "B", "B", "A", "A", "B", "B"]},
     r"row 'r1': column 'gold': item \"i1\" has gold \"B\" here but \"A\" on row 'r0'"),
    ("cluster differs", {"cluster": ["c", "c", "d", "d", "c", "e", "d", "d"]},
     r"row 'r5': column 'cluster': item \"i1\" has cluster \"e\" here but \"c\" on row 'r0'"),
    ("duplicate", {"order": [0, 1, 0, 1, 0, 0, 0, 1]},
     r"row 'r5': columns 'judge','item','order','variant': .* already occurs on row 'r4'"),
]


@pytest.mark.parametrize("case,changes,message", BAD_FRAMES, ids=[c[0] for c in BAD_FRAMES])
def test_bad_frames_raise_naming_the_row(case, changes, message):
    frame = small_frame(**changes)
    with pytest.raises(ValueError, match=message):
        judgestat.load(frame)
    # The file says the same about the same record (line = row + 2: the header is line 1).
    text = frame.to_csv(index=False)
    with open_csv(text) as path, pytest.raises(ValueError) as from_file:
        judgestat.load(path)
    assert ": column '" in str(from_file.value) or "columns 'judge'" in str(from_file.value)


def test_missing_required_column():
    with pytest.raises(ValueError, match=r"column 'verdict': required column is missing"):
        judgestat.load(small_frame().drop(columns=["verdict"]))


def test_not_records():
    with pytest.raises(TypeError, match="expected a path, a pandas DataFrame, a pyarrow Table or a dict"):
        judgestat.load(42)
    with pytest.raises(TypeError, match="column 'verdict' holds a list"):
        judgestat.load(small_frame(verdict=[["A"]] * 8))


def test_dict_rows_are_named_by_position():
    arrays = {k: np.asarray(v) for k, v in small_frame().reset_index(drop=True).items()}
    arrays["judge"] = np.array(["a", "a", "a", None, "b", "b", "b", "b"], dtype=object)
    with pytest.raises(ValueError, match=r"^arrays row 3: column 'judge'"):
        judgestat.load(arrays)


def test_float_columns_are_not_copied():
    frame = small_frame()
    column = frame["p.A"].to_numpy()
    specs, *_ = judgestat._columns.column_specs(frame)
    (array,) = [s[2] for s in specs if s[0] == "p.A"]
    assert np.shares_memory(array, column)


def test_repr_html_names_the_counts():
    html = judgestat.load(JUDGEBENCH)._repr_html_()
    assert "4200 records" in html and "o1-mini-2024-09-12" in html


def test_nul_characters_keep_ids_distinct_as_in_a_file():
    # pandas' factorize compares texts only up to a NUL ('a\0x' == 'a'); the CLI's loader keeps
    # them apart, and so must a DataFrame.
    frame = small_frame(item=["i1\0x", "i1\0x", "i1", "i1", "i1\0x", "i1\0x", "i1", "i1"])
    m = judgestat.load(frame)
    assert m.items == ["i1\0x", "i1"]
    with open_csv(frame.to_csv(index=False)) as path:
        same_matrix(m, judgestat.load(path))
    # A record that repeats a NUL id with another gold is named with the NUL shown escaped.
    bad = small_frame(item=["a\0x", "a\0x", "a\0y", "a\0y", "a\0x", "a\0x", "a", "a"],
                      gold=["A", "A", "B", "B", "A", "B", "B", "B"])
    with pytest.raises(judgestat.InputError,
                       match=r"^DataFrame row 'r5': column 'gold': item \"a\\x00x\" has gold \"B\" here but "
                             r"\"A\" on row 'r0'"):
        judgestat.load(bad)


@pytest.mark.parametrize("column", ["p.A", "fee_usd", "order"])
def test_int_past_a_double_names_the_row_and_column(column):
    # 10**400 does not fit a double (float() of it overflows); pandas holds it in an object column.
    frame = small_frame(fee_usd=[0.1] * 8)
    values = list(frame[column])
    values[3] = 10 ** 400
    frame[column] = pd.Series(values, index=frame.index, dtype=object)
    message = rf"^DataFrame row 'r3': column '{column}': expected a number a double can hold \(within ±1.8e308\), " \
              r"got an integer of 401 digits"
    with pytest.raises(judgestat.InputError, match=message):
        judgestat.load(frame)
    arrays = {name: np.asarray(frame[name].tolist(), dtype=object) for name in frame.columns}
    with pytest.raises(judgestat.InputError, match=message.replace("DataFrame row 'r3'", "arrays row 3")):
        judgestat.load(arrays)


def test_int_past_a_double_in_probs_names_the_row():
    frame = small_frame().drop(columns=["p.A", "p.B"])
    frame["probs"] = [None] * 4 + [{"A": 0.9, "B": 0.1}, {"A": -(10 ** 400), "B": 0.2}, None, None]
    with pytest.raises(judgestat.InputError, match=r"^DataFrame row 'r5': column 'probs': expected a probability "
                                                   r"for label 'A' a double can hold"):
        judgestat.load(frame)
