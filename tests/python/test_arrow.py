"""Records from Arrow: a pyarrow.Table and a .parquet path give the file's ItemMatrix and the
file's analysis; columns the loader does not read (lists, dicts) are ignored in every input;
without pyarrow a Parquet path names the extra to install."""
import builtins
import json

import numpy as np
import pandas as pd
import pytest

from conftest import JUDGEBENCH, run_cli, without_input
from test_analyses import ANALYSES

judgestat = pytest.importorskip("judgestat")


def same_matrix(a, b):
    for field in ["judges", "items", "labels", "clusters", "benchmarks", "conditions", "variants", "orders",
                  "records", "invalid"]:
        assert getattr(a, field) == getattr(b, field), field
    pd.testing.assert_frame_equal(a.validity, b.validity)


def with_unread_columns(frame):
    """The frame with the columns a harness writes beside the records: a list per row (two
    games), a dict per row and a long text, none of them a record field."""
    frame = frame.copy()
    frame["games"] = [[{"score": "A>B"}, {"score": "B>A"}] for _ in range(len(frame))]
    frame["meta"] = [{"turn": k % 2, "tags": ["x"] * (k % 3)} for k in range(len(frame))]
    frame["prompt"] = ["a long prompt " * 20] * len(frame)
    return frame


def test_list_and_dict_columns_are_ignored_in_a_dataframe_and_arrays():
    frame = pd.read_csv(JUDGEBENCH)
    wide = with_unread_columns(frame)
    same_matrix(judgestat.load(wide), judgestat.load(JUDGEBENCH))
    arrays = {name: list(wide[name]) for name in wide.columns}
    same_matrix(judgestat.load(arrays), judgestat.load(JUDGEBENCH))


def test_a_list_in_a_column_the_loader_reads_is_still_an_error():
    frame = pd.read_csv(JUDGEBENCH).head(4)
    frame["x.length"] = [[1, 2]] * 4  # x.<name> is a covariate: read, so a list there is bad input
    with pytest.raises(TypeError, match="column 'x.length' holds a list"):
        judgestat.load(frame)


def test_a_column_read_only_as_the_item_level_column_is_kept():
    frame = pd.read_csv(JUDGEBENCH).head(4)
    frame["source"] = [["a"]] * 4  # ignored unless asked for as the item-level column
    assert judgestat.load(frame).records == 4
    with pytest.raises(TypeError, match="column 'source' holds a list"):
        judgestat.load(frame, select_column="source")


def test_without_pyarrow_a_parquet_path_names_the_extra(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(f"No module named '{name}'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ImportError, match=r"needs pyarrow.*pip install 'judgestat\[parquet\]'"):
        judgestat.load(tmp_path / "records.parquet")


try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    pa = pq = None
needs_pyarrow = pytest.mark.skipif(pa is None, reason="pyarrow is not installed (pip install 'judgestat[parquet]'); "
                                                     "CI's pip-install step installs it and runs these")


def parquet_of(frame, path):
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    return str(path)


@needs_pyarrow
def test_parquet_with_list_columns_equals_the_csv_file(tmp_path):
    frame = pd.read_csv(JUDGEBENCH, dtype=str, keep_default_na=False)
    path = parquet_of(with_unread_columns(frame), tmp_path / "judgebench.parquet")
    assert pa.types.is_list(pq.read_schema(path).field("games").type)  # a list column, as written
    m = judgestat.load(path)
    same_matrix(m, judgestat.load(JUDGEBENCH))
    assert m.source == path


@needs_pyarrow
def test_metrics_on_parquet_and_table_equal_the_cli_on_the_csv(tmp_path):
    frame = pd.read_csv(JUDGEBENCH)
    path = parquet_of(with_unread_columns(frame), tmp_path / "judgebench.parquet")
    options = dict(judges=["o1-mini-2024-09-12"], replicates=500, seed=7, backend="cpu")
    cli = run_cli("metrics", JUDGEBENCH, "--judges", "o1-mini-2024-09-12", "--replicates", 500, "--seed", 7,
                  "--backend", "cpu", "--format", "json", "--quiet")
    from_parquet = judgestat.metrics(path, **options).to_json()
    indexed = with_unread_columns(frame).set_axis([f"r{k}" for k in range(len(frame))])  # stored in the metadata
    from_table = judgestat.metrics(pa.Table.from_pandas(indexed), **options).to_json()
    assert without_input(from_parquet) == without_input(cli)
    assert without_input(from_table) == without_input(cli)
    assert json.loads(from_parquet)["input"]["path"] == path
    assert json.loads(from_table)["input"]["path"] == "Table"


@needs_pyarrow
def test_dictionary_columns_read_as_their_texts():
    frame = pd.read_csv(JUDGEBENCH)
    table = pa.Table.from_pandas(frame).cast(pa.schema(
        [pa.field(name, pa.dictionary(pa.int32(), pa.string())) if name in ("judge", "item") else field
         for name, field in zip(frame.columns, pa.Table.from_pandas(frame).schema)]))
    same_matrix(judgestat.load(table), judgestat.load(JUDGEBENCH))


@needs_pyarrow
def test_a_bad_parquet_value_names_the_file_row_and_column(tmp_path):
    frame = pd.read_csv(JUDGEBENCH).head(6)
    frame["order"] = frame["order"].astype(str)  # a text column, as some exporters write it
    frame.loc[3, "order"] = "high"
    path = parquet_of(frame, tmp_path / "bad.parquet")
    with pytest.raises(judgestat.InputError, match=rf"^{path} row 3: column 'order': "):
        judgestat.load(path)
    with pytest.raises(judgestat.InputError, match=r"^Table row 3: column 'order': "):
        judgestat.load(pa.Table.from_pandas(frame.set_axis(list("abcdef"))))  # by position, not the index


@needs_pyarrow
def test_a_missing_or_unreadable_parquet_file_is_named(tmp_path):
    with pytest.raises(judgestat.InputError, match=r"nowhere\.parquet: cannot open: No such file"):
        judgestat.load(tmp_path / "nowhere.parquet")
    not_parquet = tmp_path / "text.parquet"
    not_parquet.write_text("judge,item,verdict\n")
    with pytest.raises(judgestat.InputError, match=r"text\.parquet: not a readable Parquet file"):
        judgestat.load(not_parquet)


@needs_pyarrow
def test_a_parquet_probs_struct_column_reads_as_p_columns(tmp_path):
    frame = pd.read_csv(JUDGEBENCH).head(40)
    probs = np.linspace(0.05, 0.95, len(frame))
    frame["p.A"], frame["p.B"] = probs, 1 - probs
    as_struct = frame.drop(columns=["p.A", "p.B"])
    as_struct["probs"] = [{"A": a, "B": 1 - a} for a in probs]
    path = parquet_of(as_struct, tmp_path / "probs.parquet")
    m = judgestat.load(path)
    same_matrix(m, judgestat.load(frame))
    assert m.columns_given["probabilities"]


@needs_pyarrow
@pytest.mark.parametrize("name,command,path,options,flags",
                         [a for a in ANALYSES if a[0] in ("cascade", "budget", "profile")],
                         ids=["cascade", "budget", "profile"])
def test_every_analysis_takes_a_parquet_path_and_a_table(tmp_path, name, command, path, options, flags):
    frame = pd.read_csv(path)
    parquet = parquet_of(with_unread_columns(frame), tmp_path / "records.parquet")
    run = getattr(judgestat, command)
    from_file = run(path, backend="cpu", **options).to_json()
    assert without_input(run(parquet, backend="cpu", **options).to_json()) == without_input(from_file)
    assert without_input(run(pa.Table.from_pandas(frame), backend="cpu", **options).to_json()) == \
        without_input(from_file)


@needs_pyarrow
def test_items_takes_a_parquet_path(tmp_path):
    parquet = parquet_of(pd.read_csv(JUDGEBENCH), tmp_path / "records.parquet")
    pd.testing.assert_frame_equal(judgestat.items(parquet, disagree=True).items,
                                  judgestat.items(JUDGEBENCH, disagree=True).items)
