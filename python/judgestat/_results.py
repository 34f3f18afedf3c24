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


def _with_ci_columns(rows):
    out = []
    for row in rows:
        row = dict(row)
        if isinstance(row.get("ci"), list) and len(row["ci"]) == 2:
            row["ci_lo"], row["ci_hi"] = row.pop("ci")
        out.append(row)
    return out


def _frame(rows, columns=None):
    import pandas as pd
    frame = pd.DataFrame(_with_ci_columns(rows))
    if columns is not None:
        frame = frame.reindex(columns=[c for c in columns if c in frame.columns] +
                              [c for c in frame.columns if c not in columns])
    return frame


def _is_rows(value):
    return isinstance(value, list) and len(value) > 0 and all(isinstance(v, dict) for v in value)


def _table(value):
    """A JSON value as a table: rows → a DataFrame; an object with one list of rows → that
    DataFrame (its other fields in .attrs); with several → a dict of DataFrames; else as is."""
    if _is_rows(value):
        return _frame(value)
    if isinstance(value, dict):
        children = {k: v for k, v in value.items() if _is_rows(v)}
        if len(children) == 1:
            (key, rows), = children.items()
            frame = _frame(rows)
            frame.attrs.update({k: v for k, v in value.items() if k != key})
            return frame
        if children:
            return {k: _frame(v) for k, v in children.items()}
    return value


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
        frame = _frame(rows, STATISTIC_COLUMNS + P_COLUMNS)
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
        """The JSON's tables by name (everything but the envelope, settings, notes and timing)."""
        return {k: _table(v) for k, v in self.json.items() if k not in _NOT_TABLES and _table(v) is not v}

    @property
    def items(self):
        """items: the per-item table in the CLI's column order."""
        if "rows" not in self.json:
            raise AttributeError("items: only judgestat.items() results have the per-item table")
        frame = _frame(self.json["rows"])
        columns = self.json.get("columns")
        return frame[columns] if columns else frame

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.json and name not in _NOT_TABLES:
            return _table(self.json[name])
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

    def __repr__(self):
        n = len(self.json.get("statistics") or [])
        return f"<judgestat.Result {self.command} on {self.matrix.source}: {n} statistics; tables {sorted(self.tables)}>"

    def _repr_html_(self):
        s = self.settings
        run = ", ".join(f"{k} {s[k]}" for k in ["replicates", "draws", "ci", "level", "seed", "backend"] if k in s)
        head = (f"<p><b>judgestat {html.escape(self.command)}</b> on {html.escape(str(self.matrix.source))} "
                f"({self.matrix.records} records): {html.escape(run)}</p>")
        body = ""
        if self.json.get("statistics"):
            frame = self.statistics
            shown = frame[["judge", "name"]].copy()
            qualifiers = [c for c in ["reference", "benchmark", "condition", "order", "variant", "label",
                                      "threshold"] if frame[c].notna().any()]
            for c in qualifiers:
                shown[c] = frame[c]
            shown["estimate"] = frame["estimate"].map(lambda v: f"{v:.4f}" if np.isfinite(v) else "—")
            level = s.get("level", 0.95)
            shown[f"{level:.0%} CI"] = [f"({lo:.4f}, {hi:.4f})" if np.isfinite(lo) else "—"
                                        for lo, hi in zip(frame["ci_lo"], frame["ci_hi"])]
            shown["n"] = frame["n"]
            body = shown.to_html(index=False, max_rows=60, na_rep="")
        elif "rows" in self.json:
            body = self.items.to_html(index=False, max_rows=30)
        tables = sorted(self.tables)
        tail = f"<p>tables: {html.escape(', '.join(tables))}</p>" if tables else ""
        notes = "".join(f"<li>{html.escape(str(n))}</li>" for n in self.notes[:10])
        return head + body + tail + (f"<ul>{notes}</ul>" if notes else "")
