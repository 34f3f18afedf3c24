"""judgestat.load(..., map=...) and the analyses' map= (issue 29 item 3, docs/python.md "Judge
logs through a map"): the same C++ mapper as `judgestat import` and `judgestat metrics --map`, so
each test compares with the CLI's own output; several files and globs merged as the CLI merges
them; a missing path or a bad map is an error, never skipped."""
import json
import os
import shutil

import pytest

from conftest import SOURCE_DIR, run_cli, without_argv_and_timing, without_input

judgestat = pytest.importorskip("judgestat")

ARENA = os.path.join(SOURCE_DIR, "data", "import", "arena-hard", "gpt-4-1106-preview.jsonl")
FASTCHAT = os.path.join(SOURCE_DIR, "data", "import", "fastchat-pairwise", "gpt-4_pair.jsonl")


def matrix_contents(m):
    """What a matrix holds, independent of where it was read from."""
    return (m.records, m.invalid, m.judges, m.items, m.labels, m.clusters, m.benchmarks, m.orders,
            m.validity.to_dict("list"))


def imported_csv(tmp_path, name, *files):
    """`judgestat import NAME FILES` written to a CSV file (the CLI's records for the log)."""
    out = tmp_path / f"{name}.csv"
    out.write_text(run_cli("import", name, *files), encoding="utf-8")
    return out


def test_a_log_through_a_builtin_map_is_the_imported_csv(tmp_path):
    mapped = judgestat.load(ARENA, map="arena-hard")
    imported = judgestat.load(imported_csv(tmp_path, "arena-hard", ARENA))
    assert matrix_contents(mapped) == matrix_contents(imported)
    # The log's 12 lines, two games each (hand count of data/import/arena-hard's file); one game
    # has a null score, an invalid record.
    assert (mapped.records, mapped.invalid, len(mapped.items)) == (24, 1, 12)
    assert mapped.judges == ["gpt-4-1106-preview"] and mapped.map == "arena-hard"
    assert mapped.source == ARENA and len(mapped.sha256) == 64


def test_metrics_with_map_is_the_clis_metrics_with_map():
    result = judgestat.metrics(ARENA, map="arena-hard", replicates=300, seed=5)
    cli = run_cli("metrics", ARENA, "--map", "arena-hard", "--replicates", "300", "--seed", "5", "--format", "json")
    assert without_argv_and_timing(result.to_json()) == without_argv_and_timing(cli)
    assert json.loads(result.to_json())["argv"][1:] == [ARENA, "--replicates", "300", "--seed", "5", "--map",
                                                        "arena-hard"]
    # a matrix loaded through the map gives the same result; one loaded without it is refused
    matrix = judgestat.load(ARENA, map="arena-hard")
    again = judgestat.metrics(matrix, map="arena-hard", replicates=300, seed=5)
    assert without_argv_and_timing(again.to_json()) == without_argv_and_timing(cli)
    with pytest.raises(ValueError, match=r"map \(--map\): the ItemMatrix was read through map=None"):
        judgestat.metrics(judgestat.load(os.path.join(SOURCE_DIR, "data", "judgebench", "gpt4o_split.csv")),
                          map="arena-hard")


def test_rows_in_memory_go_through_the_map_as_the_file_does():
    import pandas as pd
    with open(ARENA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    from_file = judgestat.metrics(ARENA, map="arena-hard", replicates=200)
    for given in (pd.DataFrame(rows), rows):
        matrix = judgestat.load(given, map="arena-hard")
        assert matrix_contents(matrix) == matrix_contents(judgestat.load(ARENA, map="arena-hard"))
        assert matrix.sha256 == ""
        result = judgestat.metrics(given, map="arena-hard", replicates=200)
        assert without_input(result.to_json()) == without_input(from_file.to_json())


@pytest.mark.parametrize("name, path, rows_at", [
    ("inspect", os.path.join("inspect", "qa_graded.json"), "samples"),  # a JSON document, rows at "samples"
    ("alpacaeval", os.path.join("alpacaeval", "annotations.json"), None),  # a JSON array of rows
])
def test_rows_of_a_json_log_in_memory_are_the_file(name, path, rows_at):
    path = os.path.join(SOURCE_DIR, "data", "import", path)
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    rows = document[rows_at] if rows_at else document
    assert matrix_contents(judgestat.load(rows, map=name)) == matrix_contents(judgestat.load(path, map=name))


def test_a_map_error_names_the_key(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"input": "jsonl", "fields": {"judge": "judge", "item": "question_id",
                                                            "verdict": "winner", "foo": "x"}}))
    with pytest.raises(judgestat.InputError, match=r"fields\.foo: not a record field"):
        judgestat.load(ARENA, map=str(bad))
    with pytest.raises(judgestat.UsageError, match=r"arena-hard"):  # the error lists the built-in maps
        judgestat.load(ARENA, map="no-such-map")


def test_a_row_error_names_the_row_and_the_field(tmp_path):
    import pandas as pd
    table = tmp_path / "table.json"  # a value table without "B>>A"
    spec = json.loads(judgestat._judgestat.import_map_text("arena-hard"))
    del spec["fields"]["verdict"]["values"]["B>>A"]
    table.write_text(json.dumps(spec))
    with open(ARENA, encoding="utf-8") as f:
        lines = f.read().splitlines()
    first_line = next(n for n, line in enumerate(lines, 1) if '"B>>A"' in line)
    with pytest.raises(judgestat.InputError, match=rf"{ARENA}:{first_line}: fields\.verdict"):
        judgestat.load(ARENA, map=str(table))
    frame = pd.DataFrame([json.loads(line) for line in lines], index=[f"r{n}" for n in range(len(lines))])
    with pytest.raises(judgestat.InputError, match=rf"^DataFrame row 'r{first_line - 1}': fields\.verdict"):
        judgestat.load(frame, map=str(table))


def test_several_paths_and_a_glob_merge_as_the_cli_merges(tmp_path):
    import pandas as pd
    whole = pd.read_csv(os.path.join(SOURCE_DIR, "data", "llmbar", "natural_neighbor.csv"), dtype=str,
                        keep_default_na=False)
    judges = sorted(whole["judge"].unique())
    parts = []
    for n, judge in enumerate(judges[:2]):
        parts.append(tmp_path / f"part{n}.csv")
        whole[whole["judge"] == judge].to_csv(parts[-1], index=False)
    merged = judgestat.load([str(p) for p in parts])
    by_glob = judgestat.load(str(tmp_path / "part*.csv"))
    assert matrix_contents(merged) == matrix_contents(by_glob)
    assert merged.source == f"{parts[0]}, {parts[1]}" and by_glob.paths == [str(p) for p in parts]
    assert sorted(merged.judges) == judges[:2]
    assert merged.records == int(whole["judge"].isin(judges[:2]).sum())
    cli = run_cli("metrics", *parts, "--replicates", "200", "--format", "json")
    result = judgestat.metrics([str(p) for p in parts], replicates=200)
    assert without_argv_and_timing(result.to_json()) == without_argv_and_timing(cli)


def test_several_logs_through_a_map(tmp_path):
    second = tmp_path / "other.jsonl"
    shutil.copy(ARENA, second)
    with open(second, encoding="utf-8") as f:
        text = f.read().replace('"judge": "gpt-4-1106-preview"', '"judge": "other-judge"')
    second.write_text(text, encoding="utf-8")
    merged = judgestat.load([ARENA, str(second)], map="arena-hard")
    imported = judgestat.load(imported_csv(tmp_path, "arena-hard", ARENA, second))
    assert matrix_contents(merged) == matrix_contents(imported)
    assert sorted(merged.judges) == ["gpt-4-1106-preview", "other-judge"] and merged.records == 48


def test_a_missing_path_is_an_error_never_skipped(tmp_path):
    missing = str(tmp_path / "nowhere.csv")
    with pytest.raises(judgestat.UsageError, match=r"nowhere\.csv': no such file"):
        judgestat.load([ARENA, missing], map="arena-hard")
    with pytest.raises(judgestat.UsageError, match=r"nowhere\.csv': no such file"):
        judgestat.metrics(missing)
    with pytest.raises(judgestat.UsageError, match=r"nothing\*\.csv': the pattern matches no file"):
        judgestat.load(str(tmp_path / "nothing*.csv"))


def test_a_map_that_reads_the_file_name_refuses_rows_in_memory():
    import pandas as pd
    with pytest.raises(ValueError, match=r"reads the input file's name \(\$file\); give the file's path"):
        judgestat.load(pd.DataFrame({"prompt": ["p"]}), map="rewardbench")
