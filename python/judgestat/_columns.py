"""Records from a pandas DataFrame or a dict of numpy arrays, as the columns the engine reads.

Each column becomes either numbers (a float64 array, NaN = missing; numeric dtypes of the
numeric fields and probabilities) or texts (int64 codes into a list of distinct texts, -1 =
missing). The engine then parses every value as the CSV reader parses its text, so the
checks and their messages are the file loader's (docs/python.md "DataFrames").
"""

import math
import re

import numpy as np

# Fields whose values are numbers in a file (docs/statistics.md §1), probabilities aside.
_NUMERIC_FIELDS = {"order", "rationale_ok", "fee_usd", "latency_s", "flag"}
_RECORD_FIELDS = {"judge", "item", "gold", "verdict", "cluster", "benchmark", "condition", "variant",
                  "adjudicated"} | _NUMERIC_FIELDS


def _is_numeric_field(name):
    return name in _NUMERIC_FIELDS or name.startswith("p.")


def _value_text(value, column):
    """The text a CSV file holds for one distinct value of a text column."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if value.is_integer():
            return str(int(value))  # an integer id read as float because of missing values
        return repr(value)
    if isinstance(value, bytes):
        return value.decode("utf-8")
    raise TypeError(f"records: column '{column}' holds a {type(value).__name__} ({value!r}); "
                    "give text or numbers")


_DOUBLE_MAX = 1.7976931348623157e308


def _check_fits_double(value, column, codes, code):
    """A Python int in a numeric field must fit a double (float() of it would overflow); the
    error names the first row holding it."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and \
            abs(int(value)) > _DOUBLE_MAX:
        position = int(np.flatnonzero(codes == code)[0])
        raise _RowError(position, column, f"expected a number a double can hold (within ±1.8e308), got an "
                                          f"integer of {len(str(abs(int(value))))} digits")


def _holds_nul(values):
    """Whether a text of `values` holds a NUL character."""
    try:
        return "\0" in "".join(values)
    except TypeError:  # missing values or numbers among the texts
        return any("\0" in v for v in values if isinstance(v, str))


def _factorize_exactly(values):
    """pd.factorize compares texts up to their first NUL, so 'a\\0x' and 'a' would be one id; the CLI's
    loader keeps them apart, and so does this dictionary (used only for texts with a NUL)."""
    import pandas as pd
    missing = np.asarray(pd.isna(values), dtype=bool)
    ids = {}
    codes = np.fromiter((-1 if missing[k] else ids.setdefault(v, len(ids)) for k, v in enumerate(values)),
                        dtype=np.int64, count=len(values))
    return codes, list(ids)


def _codes_and_texts(values, column):
    import pandas as pd
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = np.asarray(values.cat.codes, dtype=np.int64) if hasattr(values, "cat") else \
            np.asarray(values.codes, dtype=np.int64)
        categories = values.cat.categories if hasattr(values, "cat") else values.categories
        uniques = list(categories)
    elif values.dtype == object and _holds_nul(np.asarray(values, dtype=object)):
        codes, uniques = _factorize_exactly(np.asarray(values, dtype=object))
    else:
        try:
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
        except OverflowError:  # an int past a double's range: pandas fails to make an index of the values
            codes, uniques = _factorize_exactly(np.asarray(values, dtype=object))
        except TypeError:  # unhashable values: name the first
            bad = next(v for v in values if not isinstance(v, (str, bytes, int, float, bool, np.generic, type(None))))
            _value_text(bad, column)
            raise
        else:
            # factorize keeps None/NaN out of uniques (code -1); pd.NA and NaT too.
            codes, uniques = np.asarray(codes, dtype=np.int64), list(np.asarray(uniques, dtype=object))
    if _is_numeric_field(column):
        for code, value in enumerate(uniques):
            _check_fits_double(value, column, codes, code)
    return codes, [_value_text(v, column) for v in uniques]


def _column_spec(name, values):
    import pandas as pd
    kind = getattr(values, "dtype", None)
    numeric = kind is not None and not isinstance(kind, pd.CategoricalDtype) and \
        (pd.api.types.is_numeric_dtype(kind) or pd.api.types.is_bool_dtype(kind))
    if _is_numeric_field(name) and numeric:
        # float64 columns are viewed without a copy; pandas' nullable Int/Float give NaN for NA.
        if kind == np.float64:
            array = np.asarray(values)
        elif hasattr(values, "to_numpy"):
            array = values.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            array = np.asarray(values, dtype=np.float64)
        return (name, "number", array, None)
    codes, texts = _codes_and_texts(values if hasattr(values, "dtype") else np.asarray(values, dtype=object), name)
    return (name, "text", codes, texts)


def _probs_columns(series, labels_seen):
    """A `probs` column of dicts (label → probability) as p.<label> columns (NaN where absent)."""
    rows = len(series)
    columns = {}
    for position, entry in enumerate(series):
        if entry is None or (isinstance(entry, float) and math.isnan(entry)):
            continue
        if not isinstance(entry, dict):
            raise _RowError(position, "probs", f"expected a dict of label → probability, got {entry!r}")
        for label, p in entry.items():
            label = str(label)
            if label not in columns:
                columns[label] = np.full(rows, np.nan)
                labels_seen.append(label)
            try:
                columns[label][position] = np.nan if p is None else float(p)
            except OverflowError:  # an int past a double's range
                raise _RowError(position, "probs", f"expected a probability for label '{label}' a double can hold "
                                                   f"(within ±1.8e308), got an integer of {len(str(abs(p)))} digits")
            except (TypeError, ValueError):
                raise _RowError(position, "probs", f"expected a probability for label '{label}', got {p!r}")
    return columns


class _RowError(Exception):
    def __init__(self, position, column, what):
        super().__init__(what)
        self.position, self.column, self.what = position, column, what


def _is_read(name, item_column):
    """Whether the loader reads the column (a record field, p.<label>, x.<name>, probs or the
    item-level column asked for); the others are passed by name only, whatever they hold."""
    from . import _judgestat
    return name == "probs" or name == item_column or _judgestat.column_is_read(name)


def column_specs(records, item_column="", source=None):
    """(specs, rows, row_names, source) for a DataFrame or a dict of arrays. Columns the loader
    does not read are passed by name only (lists, dicts and long texts in them cost nothing and
    are never an error, as in a file)."""
    import pandas as pd
    if isinstance(records, pd.DataFrame):
        source = source or "DataFrame"
        if records.columns.duplicated().any():
            dup = records.columns[records.columns.duplicated()][0]
            raise ValueError(f"records: the DataFrame has two columns named '{dup}'; rename one")
        columns = {str(name): records[name] for name in records.columns}
        index = records.index
        rows = len(records)
    elif isinstance(records, dict):
        source = "arrays"
        columns = {str(name): values for name, values in records.items()}
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError("records: the arrays have different lengths "
                             f"({', '.join(f'{k}: {len(v)}' for k, v in columns.items())}); give equal lengths")
        rows = lengths.pop() if lengths else 0
        index = None
        columns = {k: (v if hasattr(v, "dtype") or not _is_read(k, item_column) else np.asarray(v, dtype=object))
                   for k, v in columns.items()}
    else:
        raise TypeError("records: expected a path, a pandas DataFrame, a pyarrow Table or a dict of numpy arrays, "
                        f"got {type(records).__name__}")
    row_names = _RowNames(index)
    specs = []
    try:
        for name, values in columns.items():
            if not _is_read(name, item_column):
                specs.append((name, "skipped", None, None))
                continue
            if name == "probs":
                labels_seen = []
                for label, array in _probs_columns(values, labels_seen).items():
                    if "p." + label in columns:
                        raise ValueError(f"records: label '{label}' has both a p.{label} column and a probs key; "
                                         "keep one")
                    specs.append(("p." + label, "number", array, None))
                continue
            specs.append(_column_spec(name, values))
    except _RowError as error:
        from . import _judgestat
        raise _judgestat.InputError(f"{source} {row_names.name(error.position)}: column '{error.column}': "
                                    f"{error.what}") from None
    return specs, rows, row_names, source


class _RowNames:
    """Names a row by the DataFrame's index label (by position for a dict of arrays)."""

    def __init__(self, index):
        self.index = index

    def name(self, position):
        if self.index is None:
            return f"row {position}"
        label = self.index[position]
        if isinstance(label, np.generic):
            label = label.item()
        return f"row {label!r}"

    def rewrite(self, message, source):
        """The engine's 'SOURCE:LINE: …' and '… on line N' with the rows' index labels."""
        def at_row(match):
            return f"{source} {self.name(int(match.group(1)) - 1)}: "
        message = re.sub(rf"^{re.escape(source)}:(\d+): ", at_row, message)
        return re.sub(r"on line (\d+)", lambda m: "on " + self.name(int(m.group(1)) - 1), message)
