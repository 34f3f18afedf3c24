"""An analysis's result: its JSON document (the CLI's --json) as pandas tables."""

import html
import json
import os

import numpy as np

# The JSON's statistics rows (docs/statistics.md §4) as tidy columns; "ci" becomes ci_lo, ci_hi.
STATISTIC_COLUMNS = ["name", "judge", "reference", "of", "benchmark", "condition", "order", "variant", "label",
                     "position", "threshold", "n", "estimate", "ci_lo", "ci_hi", "se", "undefined"]
P_COLUMNS = ["p", "perm_p", "p_holm", "p_bh"]
# Keys of the envelope and the run's bookkeeping, which are no tables.
_NOT_TABLES = {"tool", "version", "command", "argv", "input", "settings", "timing", "notes", "statistics"}
# --save-replicates names a column by the label's fields in this order (host/cli/cli_common.cpp).
_KEY_FIELDS = ["judge", "of", "reference", "benchmark", "condition", "order", "variant", "label", "position",
               "threshold"]


def _is_rows(value):
    return isinstance(value, list) and len(value) > 0 and all(isinstance(v, dict) for v in value)


def _is_scalar(value):
    return value is None or isinstance(value, (str, bool, int, float))


def _is_ci(key, value):
    return (key == "ci" or key.endswith("_ci")) and isinstance(value, list) and len(value) == 2 and all(map(_is_scalar, value))


# Numeric fields that tell rows apart (besides every text and flag field).
_NUMERIC_IDS = {"order", "position", "k", "tau", "threshold", "repeat"}


def _is_quantiles(key, value):
    return key.endswith("_q") and isinstance(value, list) and len(value) in (2, 3) and all(map(_is_scalar, value))


def _number_or_text(text):
    try:
        return float(text)
    except ValueError:
        return text


def _ids(flat):
    """The columns of a flattened row that tell it apart (texts, flags, orders, k, thresholds;
    not counts or measured values), repeated on its nested rows' table."""
    return {k: v for k, v in flat.items() if isinstance(v, (str, bool)) or k in _NUMERIC_IDS or k.startswith("tau_")}


def _confusion_rows(row):
    """A confusion matrix as long rows: one per (gold, verdict) cell with its count."""
    ids = {k: v for k, v in row.items() if k not in ("gold", "verdict", "counts")}
    return [dict(ids, gold=gold, verdict=verdict, count=count)
            for gold, counts in zip(row["gold"], row["counts"]) for verdict, count in zip(row["verdict"], counts)]


def _flatten_row(row, prefix=""):
    """One JSON row as (flat cells, nested lists by column name): a two-element `ci` (`X_ci`)
    becomes ci_lo, ci_hi (X_ci_lo, X_ci_hi); an object's fields become prefixed columns (held-out scores as heldout_…); a
    list (of rows, of values, a matrix) is returned to go to a table of its own."""
    flat, nested = {}, {}
    for key, value in row.items():
        name = prefix + key
        if _is_ci(key, value):
            flat[name + "_lo"], flat[name + "_hi"] = value
        elif _is_quantiles(key, value):  # budget's [2.5, (50,) 97.5 %] quantiles
            flat.update(zip([name + "025", name + "50", name + "975"] if len(value) == 3 else
                            [name + "025", name + "975"], value))
        elif key == "compare" and isinstance(value, list) and len(value) == 2:  # d = B − A
            flat[name + "_a"], flat[name + "_b"] = value
        elif key == "tau_hist" and isinstance(value, dict):  # threshold → draws choosing it, long
            nested[name] = [{"tau": _number_or_text(tau), "count": count} for tau, count in value.items()]
        elif isinstance(value, dict):
            inner, inner_nested = _flatten_row(value, name + "_")
            flat.update(inner)
            nested.update(inner_nested)
        elif isinstance(value, list):
            nested[name] = value
        else:
            flat[name] = value
    return flat, nested


def _with_ids(child, ids, name):
    """A nested row with its parent's identifying columns first; where both have a value for a
    column and they differ, the parent's is NAME_COLUMN."""
    row = {}
    for key, value in ids.items():
        mine = child.get(key)
        row[f"{name}_{key}" if mine is not None and mine != value else key] = value
    row.update({k: v for k, v in child.items() if v is not None or k not in row})
    return row


def _long_rows(values):
    """A nested list as rows: rows as they are, values as {value}, a matrix as {row, column, value}."""
    if all(isinstance(v, dict) for v in values):
        return list(values)
    if all(isinstance(v, list) for v in values):
        return [{"row": i, "column": j, "value": x} for i, line in enumerate(values) for j, x in enumerate(line)]
    return [{"value": v} for v in values]


def _flat_tables(name, rows):
    """Rows of a JSON table → {table name: flat rows}: the table itself and, for each nested
    list, its own long table (recursively), named NAME_KEY."""
    if name == "confusion" and all("counts" in r for r in rows):
        rows = [cell for row in rows for cell in _confusion_rows(row)]
    tables = {name: []}
    nested_rows = {}
    for row in rows:
        flat, nested = _flatten_row(row)
        tables[name].append(flat)
        ids = _ids(flat)
        for key, values in nested.items():
            nested_rows.setdefault(key, []).extend(_with_ids(child, ids, name) for child in _long_rows(values))
    for key, child_rows in nested_rows.items():
        if child_rows:
            tables.update(_flat_tables(f"{name}_{key}", child_rows))
    return tables


def _numeric_columns(frame):
    """A column mixing numbers and texts (a threshold or tau that may be 'all'), or any tau
    column, becomes numeric (NaN for the texts) with the texts in COLUMN_label."""
    import pandas as pd
    for column in list(frame.columns):
        values = frame[column]
        if values.dtype != object and not pd.api.types.is_string_dtype(values):
            continue
        present = [v for v in values.astype(object) if v is not None and not (isinstance(v, float) and v != v)]
        texts = [v for v in present if isinstance(v, str)]
        numbers = [v for v in present if isinstance(v, (int, float)) and not isinstance(v, bool)]
        is_tau = column == "tau" or column.startswith("tau_")
        if texts and (numbers or is_tau) and len(texts) + len(numbers) == len(present):
            position = frame.columns.get_loc(column)
            label = values.map(lambda v: v if isinstance(v, str) else None)
            frame[column] = pd.to_numeric(values.map(lambda v: None if isinstance(v, str) else v), errors="coerce")
            frame.insert(position + 1, f"{column}_label", label)
    return frame


def _without_empty_objects(frame):
    """Drops a column that is empty on every row where other rows held an object there (its
    fields are the KEY_… columns)."""
    empty = [c for c in frame.columns if frame[c].isna().all() and any(str(o).startswith(f"{c}_") for o in frame.columns)]
    return frame.drop(columns=empty)


def _frame(rows, columns=None):
    import pandas as pd
    frame = _numeric_columns(_without_empty_objects(pd.DataFrame(rows)))
    if columns is not None:
        frame = frame.reindex(columns=[c for c in columns if c in frame.columns] +
                              [c for c in frame.columns if c not in columns])
    return frame


def _frames(name, rows, columns=None):
    """{table name: DataFrame} of a JSON table and its nested tables, every cell flat."""
    return {key: _frame(table, columns if key == name else None) for key, table in _flat_tables(name, rows).items()}


def _tables(name, value):
    """A JSON value as tables {name: DataFrame or dict of DataFrames}: rows → a DataFrame (and
    its nested tables); an object with one list of rows → that DataFrame with the object's other
    fields in .attrs; with several → a dict of DataFrames under `name`. Empty when it is no table."""
    if _is_rows(value):
        return _frames(name, value)
    if isinstance(value, dict):
        children = {k: v for k, v in value.items() if _is_rows(v)}
        if len(children) == 1:
            (key, rows), = children.items()
            frames = _frames(name, rows)
            frames[name].attrs.update({k: v for k, v in value.items() if k != key})
            return frames
        if children:
            out = {name: {}}
            for key, rows in children.items():
                frames = _frames(f"{name}_{key}", rows)
                out[name][key] = frames.pop(f"{name}_{key}")
                out.update(frames)
            return out
    return {}


def statistic_key(label):
    """The --save-replicates column name of a statistic."""
    key = label["name"]
    for field in _KEY_FIELDS:
        value = label.get(field)
        if value is not None and value != "":
            key += f"|{field}={value}"
    return key


class Result:
    """One analysis: `.statistics` (tidy DataFrame), the other tables by their JSON names
    (`.rules`, `.budget`, `.coverage`, `.spearman`, `.reliability`, …; `.tables` lists them),
    `.to_json()`, `.text`, `.csv`, `.plots`, `.replicates(name, judge=…)`."""

    def __init__(self, command, native, matrix):
        self.command = command
        self.matrix = matrix
        self._native = native
        self._json_text = native.json_text.decode("utf-8")
        self.json = json.loads(self._json_text)
        self.text = native.text
        self.csv = native.csv

    def to_json(self):
        """The CLI's --json document for the same records and options (its argv names the
        equivalent command; the DataFrame's input path is "DataFrame")."""
        return self._json_text

    @property
    def settings(self):
        return self.json.get("settings", {})

    @property
    def notes(self):
        return self.json.get("notes", [])

    @property
    def statistics(self):
        """One row per statistic: name, judge, reference, of, benchmark, condition, order,
        variant, label, position, threshold, n, estimate, ci_lo, ci_hi, se, undefined and, for
        differences, p, perm_p, p_holm, p_bh; None/NaN where a field does not apply."""
        import pandas as pd
        rows = self.json.get("statistics") or []
        frame = _frames("statistics", rows, STATISTIC_COLUMNS + P_COLUMNS)["statistics"] if rows else pd.DataFrame()
        for column in STATISTIC_COLUMNS:
            if column not in frame.columns:
                frame[column] = None
        present_p = [c for c in P_COLUMNS if c in frame.columns]
        frame = frame[STATISTIC_COLUMNS + present_p + [c for c in frame.columns
                                                       if c not in STATISTIC_COLUMNS + P_COLUMNS]]
        # order and position as float (NaN where they do not apply): nullable Int64 columns
        # would break DataFrame.query's numexpr engine ("order == 0").
        for column in ["order", "position", "estimate", "ci_lo", "ci_hi", "se"] + present_p:
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
        return frame

    @property
    def tables(self):
        """The JSON's tables by name (everything but the envelope, settings, notes and timing),
        every cell flat: a nested list of a table's rows is the table NAME_KEY (a confusion
        matrix one row per cell; a cascade rule's held-out scores rules_heldout_statistics)."""
        tables = {}
        for key, value in self.json.items():
            if key not in _NOT_TABLES:
                tables.update(_tables(key, value))
        return tables

    @property
    def items(self):
        """items: the per-item table in the CLI's column order."""
        if "rows" not in self.json:
            raise AttributeError("items: only judgestat.items() results have the per-item table")
        import pandas as pd
        frame = pd.DataFrame(self.json["rows"])
        columns = self.json.get("columns")
        return frame[columns] if columns else frame

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        tables = self.tables
        if name in tables:
            return tables[name]
        raise AttributeError(f"'{self.command}' result has no table '{name}'; it has "
                             + ", ".join(sorted(self.tables)) + " and .statistics")

    @property
    def plots(self):
        """The figures: (name, svg, csv) per figure."""
        return list(self._native.plots)

    def write_plots(self, directory):
        """Writes each figure as DIR/NAME.svg (and NAME.csv with its data), as --plots DIR."""
        os.makedirs(directory, exist_ok=True)
        for name, svg, data in self.plots:
            with open(os.path.join(directory, name + ".svg"), "w", encoding="utf-8") as out:
                out.write(svg)
            if data:
                with open(os.path.join(directory, name + ".csv"), "w", encoding="utf-8") as out:
                    out.write(data)

    def _replicate_values(self):
        values = self._native.replicates
        if values is None:
            raise ValueError(f"{self.command}: the replicates were not kept; run with keep_replicates=True")
        return values

    def replicate_table(self):
        """Every statistic's replicate values (NaN = undefined), one column per statistic named as
        --save-replicates names it."""
        import pandas as pd
        keys = [statistic_key(label) for label in self._native.labels]
        return pd.DataFrame(self._replicate_values(), columns=keys)

    def replicates(self, name, judge=None, **fields):
        """The replicate distribution of one statistic (a read-only numpy view; NaN where a
        replicate is undefined), as scipy.stats.bootstrap's bootstrap_distribution. Select it by
        name, judge and the label fields that tell statistics apart (reference=, of=,
        benchmark=, condition=, order=, variant=, label=, position=, threshold=)."""
        values = self._replicate_values()
        wanted = dict(fields, name=name)
        if judge is not None:
            wanted["judge"] = judge
        labels = self._native.labels
        chosen = [s for s, label in enumerate(labels)
                  if all(label.get(k) is not None and str(label.get(k)) == str(v) for k, v in wanted.items())]
        if len(chosen) != 1:
            candidates = [statistic_key(labels[s]) for s in range(len(labels)) if labels[s]["name"] == name]
            what = "no statistic" if not chosen else f"{len(chosen)} statistics"
            raise ValueError(f"replicates: {what} match {wanted}; the '{name}' statistics are: "
                             + ("; ".join(candidates[:20]) or "none"))
        return values[:, chosen[0]]

    def _shown_statistics(self):
        """The statistics as displayed: judge and name, every column that tells rows apart (a
        label field or another text column with a value anywhere), the estimate and its CI as
        text, n and the p-values; blank where a field does not apply."""
        frame = self.statistics
        level = self.settings.get("level", 0.95)
        shown = frame[["judge", "name"]].copy()
        numeric = set(["n", "estimate", "ci_lo", "ci_hi", "se", "undefined"] + P_COLUMNS)
        for column in frame.columns:
            if column in shown.columns or column in numeric or not frame[column].notna().any():
                continue
            if column in _KEY_FIELDS or frame[column].dtype == object:
                shown[column] = frame[column]
        shown["estimate"] = frame["estimate"]
        shown[f"{level:.0%} CI"] = [f"({lo:.4f}, {hi:.4f})" if np.isfinite(lo) and np.isfinite(hi) else None
                                    for lo, hi in zip(frame["ci_lo"], frame["ci_hi"])]
        for column in ["n"] + [c for c in P_COLUMNS if c in frame.columns]:
            shown[column] = frame[column]
        return shown.apply(lambda values: values.map(_cell_text))

    def __repr__(self):
        n = len(self.json.get("statistics") or [])
        head = f"<judgestat.Result {self.command} on {self.matrix.source}: {n} statistics; tables {sorted(self.tables)}>"
        if not n:
            return head
        return head + "\n" + self._shown_statistics().to_string(index=False, max_rows=40)

    def _repr_html_(self):
        s = self.settings
        run = ", ".join(f"{k} {s[k]}" for k in ["replicates", "draws", "ci", "level", "seed", "backend"] if k in s)
        head = (f"<p><b>judgestat {html.escape(self.command)}</b> on {html.escape(str(self.matrix.source))} "
                f"({self.matrix.records} records): {html.escape(run)}</p>")
        body = ""
        if self.json.get("statistics"):
            body = self._shown_statistics().to_html(index=False, max_rows=60)
        elif "rows" in self.json:
            body = self.items.to_html(index=False, max_rows=30, na_rep="")
        tables = sorted(self.tables)
        tail = f"<p>tables: {html.escape(', '.join(tables))}</p>" if tables else ""
        notes = "".join(f"<li>{html.escape(str(n))}</li>" for n in self.notes[:10])
        return head + body + tail + (f"<ul>{notes}</ul>" if notes else "")


def _cell_text(value):
    """A displayed cell: blank for a missing value (None, NaN), whole numbers without '.0',
    other numbers to four decimals."""
    if value is None or (isinstance(value, (float, np.floating)) and value != value):
        return ""
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if np.isfinite(value) and float(value).is_integer() and abs(value) < 1e15 else f"{value:.4f}"
    return str(value)
