"""judgestat from Python: records in (a path, a pandas DataFrame, a pyarrow Table or Parquet
file, a dict of numpy arrays), the CLI's analyses with their options as keyword arguments,
pandas out (docs/python.md).

>>> import judgestat
>>> m = judgestat.load("data/judgebench/gpt4o_split.csv")
>>> r = judgestat.metrics(m, judges=["o1-mini-2024-09-12"], replicates=2000)
>>> r.statistics.query("name == 'pa'")[["judge", "estimate", "ci_lo", "ci_hi"]]

The binding owns no option or statistic: each keyword is the CLI flag of the same name
(snake_case → --kebab-case), its value passed typed (bool, int, float, str, list, dict) to the
analysis's own option reader in the library, so defaults, checks and messages are the CLI's;
`.to_json()` is the CLI's --json document.
"""

import json as _json
import os as _os
import re as _re
import time as _time

from . import _arrow, _judgestat, _signatures
from ._columns import _is_read, column_specs
from ._results import Result

__version__ = _judgestat.__version__
InputError = _judgestat.InputError
UsageError = _judgestat.UsageError

__all__ = ["load", "ItemMatrix", "Result", "metrics", "cascade", "budget", "profile", "items", "repeats", "systems",
           "run_study", "StudyRun", "InputError", "UsageError", "builtin_maps"]


def __dir__():
    """The API only (PEP 562): no imported modules, no private helpers."""
    return sorted(__all__ + ["__version__"])


class ItemMatrix:
    """Records pivoted into judges × items × orders × variants (docs/statistics.md §1)."""

    def __init__(self, native, source, load_s, labels, item_column, scale=None, paths=None, map=None):
        self._native = native
        self.source = source  # the path (paths joined with ", "), or "DataFrame" / "arrays"
        self.load_s = load_s
        self._load_options = (list(labels), item_column)
        self.scale = scale  # (low, high) of a scored file (load's scale=), else None
        self.paths = list(paths) if paths else [source]  # the files read (globs expanded), for argv
        self.map = map  # the import map the records were read through (load's map=), else None

    judges = property(lambda self: list(self._native.judges))
    items = property(lambda self: list(self._native.items))
    labels = property(lambda self: list(self._native.labels))
    clusters = property(lambda self: list(self._native.clusters))
    benchmarks = property(lambda self: list(self._native.benchmarks))
    conditions = property(lambda self: list(self._native.conditions))
    variants = property(lambda self: list(self._native.variants))
    orders = property(lambda self: self._native.orders)
    records = property(lambda self: self._native.records)
    invalid = property(lambda self: self._native.invalid)
    sha256 = property(lambda self: self._native.sha256)

    @property
    def counts(self):
        """Records, invalid records, judges, items, clusters, labels, benchmarks, conditions,
        orders and variants."""
        n = self._native
        return {"records": n.records, "invalid": n.invalid, "judges": len(n.judges), "items": len(n.items),
                "clusters": len(n.clusters), "labels": len(n.labels), "benchmarks": len(n.benchmarks),
                "conditions": len(n.conditions), "orders": n.orders, "variants": len(n.variants)}

    @property
    def validity(self):
        """Per judge: records and invalid records (docs/statistics.md §1 validity), a DataFrame."""
        import pandas as pd
        rows = self._native.validity()
        frame = pd.DataFrame(rows, columns=["judge", "records", "invalid"])
        frame["invalid_share"] = frame["invalid"] / frame["records"].where(frame["records"] > 0)
        return frame

    @property
    def columns_given(self):
        """Which optional inputs the records carry."""
        n = self._native
        return {"probabilities": n.has_probs, "fee": n.has_fee, "latency": n.has_latency,
                "rationale": n.has_rationale, "adjudicated": n.has_adjudicated}

    def __repr__(self):
        c = self.counts
        return (f"<judgestat.ItemMatrix {self.source}: {c['records']} records ({c['invalid']} invalid), "
                f"{c['judges']} judges, {c['items']} items, {c['clusters']} clusters, labels {self.labels}>")

    def _repr_html_(self):
        import html
        c = self.counts
        given = ", ".join(k for k, v in self.columns_given.items() if v) or "none"
        head = (f"<p><b>judgestat.ItemMatrix</b> {html.escape(str(self.source))}: {c['records']} records "
                f"({c['invalid']} invalid), {c['items']} items in {c['clusters']} clusters, labels "
                f"{html.escape(', '.join(self.labels))}; benchmarks {html.escape(', '.join(self.benchmarks))}; "
                f"orders {c['orders']}, variants {html.escape(', '.join(self.variants))}; optional columns: "
                f"{html.escape(given)}</p>")
        return head + self.validity.to_html(index=False)


def load(records, labels=None, select_column=None, scale=None, map=None):
    """Records → ItemMatrix. `records`: a path, a list of paths or a glob (CSV or JSONL, as the
    CLI reads them: several files merged as `judgestat metrics A.csv B.csv` merges them, a path
    that does not exist or a glob that matches nothing an error; a `.parquet` file through
    pyarrow), a pandas DataFrame, a pyarrow.Table or a dict of numpy arrays with the record columns
    (docs/statistics.md §1; `p.<label>` columns or a `probs` column of dicts; other columns, lists
    and dicts included, are ignored as in a file). `labels` fixes the label set (--labels);
    `select_column` keeps an item-level column (cascade's --select-column); `scale` ("1:10" or
    (1, 10)) reads verdicts and gold as scores on that scale (--scale, docs/statistics.md §8.2).
    `map` (a built-in map's name, `judgestat.builtin_maps()`, or a map file's path; --map,
    docs/import.md) reads the files, or a DataFrame's / list of dicts' rows, as a harness's log.

    Bad input raises InputError (a ValueError) naming the file, line and column, or the
    DataFrame's row (its index label) and column."""
    labels = _listed(labels)
    item_column = select_column or ""
    scale = _scale_of(scale, labels)
    map = _os.fsdecode(map) if map is not None else None
    start = _time.perf_counter()
    if isinstance(records, ItemMatrix):
        if map is not None and map != records.map:
            raise ValueError(f"map (--map): the ItemMatrix was read through map={records.map!r}; "
                             f"load the records with map={map!r} or pass them themselves")
        return records
    if _is_paths(records):
        words = [_os.fsdecode(r) for r in (records if isinstance(records, (list, tuple)) else [records])]
        if map is not None or len(words) != 1 or not _arrow.is_parquet_path(words[0]):
            paths = _record_files(words)
            native = _judgestat.load_files(paths, labels, item_column, scale, map or "", "")
            return ItemMatrix(native, native.path, _time.perf_counter() - start, labels, item_column, scale, paths,
                              map)
    if map is not None:
        return _load_mapped_rows(records, map, labels, item_column, scale, start)
    source = None
    if _is_paths(records):
        path = _os.fsdecode(records[0] if isinstance(records, (list, tuple)) else records)
        records, source = _arrow.parquet_frame(path, lambda name: _is_read(name, item_column), InputError), path
    elif _arrow.is_arrow_table(records):
        records, source = _arrow.table_frame(records, lambda name: _is_read(name, item_column)), "Table"
    specs, rows, row_names, source = column_specs(records, item_column, source)
    try:
        native = _judgestat.load_columns(specs, rows, source, labels, item_column, scale)
    except InputError as error:
        raise InputError(row_names.rewrite(str(error), source)) from None
    return ItemMatrix(native, source, _time.perf_counter() - start, labels, item_column, scale)


def builtin_maps():
    """The names of the built-in import maps (`judgestat import NAME …`, load's map=NAME), sorted."""
    return list(_judgestat.builtin_map_names())


def _is_path(value):
    return isinstance(value, (str, bytes)) or hasattr(value, "__fspath__")


def _is_paths(records):
    """A path, or a non-empty list or tuple of paths."""
    if isinstance(records, (list, tuple)):
        return len(records) > 0 and all(_is_path(r) for r in records)
    return _is_path(records)


def _record_files(words):
    """The files the CLI reads for these FILE words (its record_files): a word holding '*', '?'
    or '[' is a glob, its matches in byte order; any other word must exist. Nothing is skipped."""
    import glob
    files = []
    for word in words:
        if any(c in word for c in "*?["):
            matches = sorted(glob.glob(word), key=_os.fsencode)
            if not matches:
                raise UsageError(f"FILE '{word}': the pattern matches no file")
            files += matches
        elif not _os.path.exists(word):
            raise UsageError(f"FILE '{word}': no such file (every FILE given is read; none is skipped)")
        else:
            files.append(word)
    return files


def _load_mapped_rows(records, map, labels, item_column, scale, start):
    """A DataFrame, pyarrow Table, dict of arrays or list of dicts whose rows are a harness's
    rows, read through the map: written to a temporary file in the map's input form (JSONL, or
    a JSON array at the map's `rows`; NaN/None as null) that the CLI's mapper reads; errors name
    the row as load's do."""
    import tempfile
    from ._columns import _RowNames
    rows, index, source = _harness_rows(records)
    names = _RowNames(index)
    lines = [_json_row(row, source, names.name(position)) for position, row in enumerate(rows)]
    text = _mapped_rows_text(map, lines)
    with tempfile.TemporaryDirectory(prefix="judgestat-map-") as folder:
        path = _os.path.join(folder, "rows")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            native = _judgestat.load_files([path], labels, item_column, scale, map, source)
        except InputError as error:
            message = str(error).replace(path, source)
            message = _re.sub(rf"^{_re.escape(source)}: rows\[(\d+)\]",
                             lambda m: f"{source} {names.name(int(m.group(1)))}", message)
            raise InputError(names.rewrite(message, source)) from None
    return ItemMatrix(native, source, _time.perf_counter() - start, labels, item_column, scale, map=map)


def _mapped_rows_text(map, lines):
    """The rows (JSON texts) as the map's input reads them; a map that reads a CSV file or the
    file's name (`$file`) cannot read rows given in memory."""
    spec = _json.loads(_judgestat.import_map_text(map))
    if "$file" in _json.dumps(spec.get("fields", {})):
        raise ValueError(f"map (--map): map {map!r} reads the input file's name ($file); give the file's path "
                         "instead of rows in memory")
    form = spec.get("input")
    if form == "jsonl":
        return "".join(line + "\n" for line in lines)
    rows_path = spec.get("rows", "")
    if form == "json" and _re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)?", rows_path):
        text = "[" + ",\n".join(lines) + "]"
        for key in reversed(rows_path.split(".") if rows_path else []):
            text = "{" + _json.dumps(key) + ": " + text + "}"
        return text + "\n"
    raise ValueError(f"map (--map): map {map!r} reads {form} files (rows at {rows_path!r}); give the file's path "
                     "instead of rows in memory")


def _harness_rows(records):
    """(rows as dicts, index labels or None, source name) of records given with map=."""
    import pandas as pd
    if _arrow.is_arrow_table(records):
        records = records.to_pandas()
        source = "Table"
    elif isinstance(records, dict):
        records, source = pd.DataFrame(records), "arrays"
    else:
        source = "DataFrame"
    if isinstance(records, pd.DataFrame):
        return records.to_dict(orient="records"), records.index, source
    if isinstance(records, (list, tuple)) and all(isinstance(r, dict) for r in records):
        return records, None, "records"
    raise TypeError("records: with map=, expected a path, a list of paths, a glob, a pandas DataFrame, a pyarrow "
                    f"Table, a dict of arrays or a list of dicts, got {type(records).__name__}")


def _json_value(value):
    """A cell as JSON can hold it: numpy scalars and arrays as Python's, missing values as None."""
    import numpy as np
    import pandas as pd
    if isinstance(value, np.ndarray):
        return [_json_value(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (pd.Timestamp,)):
        return value.isoformat()
    return value


def _json_row(row, source, row_name):
    try:
        return _json.dumps({str(k): _json_value(v) for k, v in row.items()}, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{source} {row_name}: cannot be written as JSON for the map: {error}") from None


def _scale_of(scale, labels):
    """load's scale= as (low, high), checked by the CLI's own --scale reader (metrics takes it)."""
    if scale is None:
        return None
    if isinstance(scale, (tuple, list)) and len(scale) == 2:
        scale = f"{_flag_text(float(scale[0]))}:{_flag_text(float(scale[1]))}"
    try:
        return _judgestat.parse("metrics", {"scale": scale, "labels": labels or None}, False).scale
    except (UsageError, ValueError) as error:
        raise type(error)(_keyword_message(str(error), "metrics")) from None


def _listed(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    return [str(v) for v in value]


def _flag_text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same double
    return str(value)


def _command_words(options):
    """The command line the keywords are the options of, for the result's argv only (a record of
    the call; the options themselves reach the library typed): True → the bare flag, lists →
    comma-separated, dicts → one JUDGE=VALUE flag per entry."""
    args = []
    for key, value in options.items():
        flag = key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append("--" + flag)
        elif isinstance(value, dict):
            for judge, v in value.items():
                args += ["--" + flag, f"{judge}={_flag_text(v)}"]
        elif isinstance(value, (list, tuple)):
            args += ["--" + flag, ",".join(_flag_text(v) for v in value)]
        else:
            args += ["--" + flag, _flag_text(value)]
    return args


def _keyword_message(message, command):
    """'--flag-name: …' (the CLI's naming) or a library field named as its flag ('ci: …') →
    'flag_name (--flag-name): …'."""
    flags = set(_judgestat.flags(command))
    match = _re.match(r"^(--)?([a-z0-9_-]+): ", message)
    if match and (match.group(1) or match.group(2).replace("_", "-") in flags):
        flag = match.group(2).replace("_", "-")
        return f"{flag.replace('-', '_')} (--{flag}): " + message[match.end():]
    return message


def _python_chunk(matrix):
    """Replicates per chunk for CPU runs from Python, unless chunk= is given: the run checks for
    Ctrl-C and reports progress between chunks (the result does not depend on the chunk size,
    docs/statistics.md §2). About 3e7 cluster draws per chunk, tens of milliseconds on a core."""
    clusters = max(1, len(matrix.clusters))
    chunk = 16
    while chunk < 8192 and chunk * 2 * clusters <= 30_000_000:
        chunk *= 2
    return chunk


def _run(command, records, progress, keep_replicates, options):
    map = options.pop("map", None)  # how the records are read (load's map=), not an analysis option
    try:
        request = _judgestat.parse(command, options, bool(keep_replicates))
    except (InputError, UsageError, ValueError) as error:
        raise type(error)(_keyword_message(str(error), command)) from None
    if isinstance(records, ItemMatrix):
        matrix = records
        if request.scale is not None and matrix.scale != request.scale:
            raise ValueError(f"scale (--scale): the ItemMatrix was loaded with scale={matrix.scale}; "
                             f"load it with scale={request.scale} or pass the records themselves")
    else:
        matrix = load(records, request.labels, request.item_column or None, request.scale, map)
    if map is not None and matrix.map != _os.fsdecode(map):
        raise ValueError(f"map (--map): the ItemMatrix was read through map={matrix.map!r}; "
                         f"load the records with map={_os.fsdecode(map)!r} or pass them themselves")
    map_words = ["--map", matrix.map] if matrix.map is not None else []
    argv = ["judgestat " + command, *matrix.paths] + _command_words(options) + map_words
    with _progress_bar(progress, command) as report:
        try:
            native = _judgestat.run(request, matrix._native, argv, matrix.load_s, report, _python_chunk(matrix))
        except (InputError, UsageError, ValueError) as error:
            raise type(error)(_keyword_message(str(error), command)) from None
    return Result(command, native, matrix)


class _progress_bar:
    """tqdm when installed and progress=True; a callable (done, total) is called as is."""

    def __init__(self, progress, command):
        self.progress, self.command, self.bar = progress, command, None

    def __enter__(self):
        if callable(self.progress):
            return self.progress
        if not self.progress:
            return None
        try:
            import tqdm
        except ImportError:
            return None

        def report(done, total):
            if self.bar is None:
                self.bar = tqdm.tqdm(total=total, desc=f"judgestat {self.command}", unit="rep")
            self.bar.update(done - self.bar.n)
        return report

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()
        return False


metrics = _signatures.analysis_function("metrics", """`judgestat metrics`: per judge the accuracy family,
classification, agreement, position bias, cost and probability quality, and paired differences
between judges, each with a clustered bootstrap CI (docs/statistics.md §3.1, §3.2, §7).

>>> r = judgestat.metrics("data/judgebench/gpt4o_split.csv", judges=["o1-mini-2024-09-12"], replicates=2000)
>>> r.statistics.query("name == 'pa'")[["judge", "estimate", "ci_lo", "ci_hi"]]""", _run)

cascade = _signatures.analysis_function("cascade", """`judgestat cascade`: the confidence cascade — accept the
first stage when it is confident, escalate to the fallback when not (JEV §7–§9): per threshold
accuracy, escalation and fees, threshold rules chosen on a selection split and scored on held-out
clusters.

>>> r = judgestat.cascade(records, first="judge-a", fallback="judge-b", fee={"judge-a": 0, "judge-b": 0.0076})
>>> r.rules, r.rules_heldout_statistics""", _run)

budget = _signatures.analysis_function("budget", """`judgestat budget`: the label-budget simulation of a
cascade's threshold rules (JEV §8; first=, fallback=, k=[48, 96], draws=…), or with
compare=[a, b] how many labels tell two judges apart (docs/statistics.md §7.6).""", _run, ("progress",))

profile = _signatures.analysis_function("profile", """`judgestat profile`: CAP conditional accuracy profiles
C1–C8 with coverage, robustness, rank stability and stress (config="configs/judgebench.json").""", _run)

repeats = _signatures.analysis_function("repeats", """`judgestat repeats`: per judge its agreement with itself
across repeats, variants and presentation orders (docs/statistics.md §8.5), with clustered
bootstrap CIs.""", _run)

systems = _signatures.analysis_function("systems", """`judgestat systems`: win rates between systems,
system-level rank agreement with gold and self-preference (docs/statistics.md §8.4;
systems=["x.model_a", "x.model_b"], baseline=…, self=…, family="judge=fam,…").""", _run)

items = _signatures.analysis_function("items", """`judgestat items`: the per-item table (result.items): each
judge's verdict and correctness per order; disagree=True keeps the items to adjudicate.""", _run, ())


class StudyRun:
    """What `run_study` did: the analyses it computed and reused (names, in study order), the
    paths of results.json and report.html, and results.json parsed (`.results`)."""

    def __init__(self, computed, reused, results_path, report_path):
        self.computed, self.reused = list(computed), list(reused)
        self.results_path, self.report_path = results_path, report_path
        with open(results_path, encoding="utf-8") as f:
            self.results = _json.load(f)

    def analysis(self, name):
        """The result (the command's JSON, as a dict) of the analysis called `name`."""
        for entry in self.results["analyses"]:
            if entry["name"] == name:
                return entry["result"]
        raise KeyError(f"no analysis named {name!r} in {self.results_path}")

    def __repr__(self):
        return (f"StudyRun({len(self.computed)} computed, {len(self.reused)} reused; "
                f"{self.report_path})")


def run_study(study, out, *, seed=None, replicates=None, backend=None, threads=None, force=False):
    """`judgestat run STUDY --out DIR` (docs/study.md): every analysis of the study file into the
    folder `out` (results.json, tables, figures, report.html), recomputing only what changed since
    the last run into it unless force=True (which also allows writing into a non-empty folder that
    is not a study folder; your own files there are kept). seed/replicates/backend/threads override
    the study's settings. Returns a StudyRun."""
    for name, value in (("seed", seed), ("replicates", replicates), ("threads", threads)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise TypeError(f"run_study: {name} must be a non-negative int, got {value!r}")
    done = _judgestat.run_study(_os.fspath(study), _os.fspath(out), seed, replicates, backend, threads, bool(force))
    return StudyRun(*done)
