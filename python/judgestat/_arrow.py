"""Records from Apache Arrow: a pyarrow.Table or a Parquet file (published judge data on model
hubs is distributed as Parquet). pyarrow is optional (`pip install 'judgestat[parquet]'`).

Only the columns the loader reads are converted (a Parquet file's other columns are not even
read from disk), to a pandas DataFrame whose values then go the DataFrame's way
(_columns.py): columns of lists, structs or long texts that no record field names are ignored,
as in a file, and a bad value is named by its row (counted from 0) and column.
"""

import errno
import os

PARQUET_SUFFIXES = (".parquet", ".pq")


def is_parquet_path(path):
    return path.lower().endswith(PARQUET_SUFFIXES)


def is_arrow_table(records):
    """A pyarrow.Table (checked without importing pyarrow: without it there can be none)."""
    import sys
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(records, pa.Table)


def _pyarrow(what):
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as error:
        raise ImportError(f"{what} needs pyarrow, which is not installed ({error}); "
                          "pip install 'judgestat[parquet]' (or pip install pyarrow)") from None
    return pyarrow


def read_columns(names, is_read):
    return [name for name in names if is_read(str(name))]


def table_frame(table, is_read):
    """The read columns of a pyarrow.Table as a DataFrame (dictionary columns as categoricals);
    by position, so that two columns of one name reach the DataFrame's check for that."""
    return _frame(table.select([k for k, name in enumerate(table.column_names) if is_read(str(name))]))


def _frame(table):
    """The DataFrame, its rows named by position (a pandas index stored in the schema's metadata
    is dropped with the unread columns, so messages count rows from 0 in every case)."""
    return table.replace_schema_metadata(None).to_pandas()


def parquet_frame(path, is_read, input_error):
    """The read columns of a Parquet file as a DataFrame; a missing or unreadable file is
    `input_error` naming the path."""
    pa = _pyarrow(f"reading the Parquet file {path}")
    if not os.path.isfile(path):  # the CLI's loader's words for a missing file
        raise input_error(f"{path}: cannot open: {os.strerror(errno.ENOENT)}")
    try:
        schema = pa.parquet.read_schema(path)
        table = pa.parquet.read_table(path, columns=read_columns(schema.names, is_read))
    except (pa.ArrowException, OSError) as error:
        raise input_error(f"{path}: not a readable Parquet file: {error}") from None
    return _frame(table)
