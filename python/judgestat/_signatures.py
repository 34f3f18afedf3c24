"""The analyses' explicit signatures and numpydoc docstrings, built from the library's option
table (include/judgestat/option_table.hpp: each option's name, type, CLI default and help, read
from the flags the request layer defines): a parameter per option the request layer accepts, no
more and no fewer, so the Python keywords cannot drift from the CLI's flags."""

import difflib as _difflib
import inspect as _inspect
import keyword as _keyword
import os as _os
import typing as _typing

from . import _judgestat

# scipy.stats.bootstrap's names for the same things, accepted beside ours.
ALIASES = {"n_resamples": "replicates", "confidence_level": "level"}

# Flags that say where output goes or how it prints: a Python result has it all already.
OUTPUT_KEYWORDS = {
    "format": "the result has .statistics, .text and .csv",
    "json": "use result.to_json()",
    "save_replicates": "pass keep_replicates=True and use result.replicates(name, ...)",
    "quiet": "a Python run prints nothing; progress=True shows a tqdm bar",
    "plots": "use result.plots (name, svg, csv) or result.write_plots(dir)",
    "out": "the rows are result.items; write them with pandas",
}

_Path = _typing.Union[str, _os.PathLike]
# Per option type (option_type_name): the annotation and the numpydoc type words.
_TYPES = {
    "switch": (bool, "bool"),
    "text": (str, "str"),
    "number": (float, "float"),
    "whole": (int, "int"),
    "integer": (int, "int"),
    "text_or_number": (_typing.Union[str, float], "str or float"),
    "words": (_typing.Union[str, _typing.Sequence[str]], "str or list of str"),
    "numbers": (_typing.Union[str, _typing.Sequence[float]], "str or list of float"),
    "whole_numbers": (_typing.Union[str, _typing.Sequence[int]], "str or list of int"),
    "numbers_or_words": (_typing.Union[str, float, _typing.Sequence[_typing.Union[str, float]]],
                         "float, str or list of them"),
    "per_judge": (_typing.Mapping[str, float], "dict of str to float"),
}

RECORDS_DOC = """records : str, path, list of paths, glob, DataFrame, pyarrow.Table, dict of arrays or ItemMatrix
    The judgment records: anything `judgestat.load` takes (with ``map=`` as there), or an
    ItemMatrix to load once and analyse many times."""

_PYTHON_DOCS = {
    "progress": ("progress : bool or callable, default False",
                 "True: a tqdm bar when tqdm is installed (silent otherwise); a callable\n"
                 "    ``progress(done, total)`` is called after each chunk."),
    "keep_replicates": ("keep_replicates : bool, default False",
                        "Keep every replicate value for ``result.replicates(name, ...)`` and\n"
                        "    ``result.replicate_table()`` (the CLI's --save-replicates)."),
}


def keyword_of(flag):
    """The Python keyword of a flag: snake_case, with a trailing underscore where the name is a
    Python keyword."""
    name = flag.replace("-", "_")
    return name + "_" if _keyword.iskeyword(name) else name


def flag_of(keyword):
    """The flag a keyword (or an unknown word) names."""
    name = keyword[:-1] if keyword.endswith("_") and _keyword.iskeyword(keyword[:-1]) else keyword
    return name.replace("_", "-")


def option_table(command):
    """The options a typed request of `command` accepts (the output flags left out), in the
    CLI's order: dicts of name, type, help, default, has_default."""
    return [o for o in _judgestat.option_table(command) if not o["output"]]


def _default_words(option):
    return "default False" if option["type"] == "switch" else "optional"


def _parameter_doc(option, alias=None):
    annotation, words = _TYPES[option["type"]]
    names = keyword_of(option["name"]) + (f", {alias}" if alias else "")
    text = option["help"].rstrip(".")
    if option["type"] != "switch" and option["has_default"] and option["default"] != "":
        text += f". The CLI's default: {option['default']}"
    text += f" (--{option['name']})."
    if alias:
        text += f" ``{alias}`` is scipy.stats.bootstrap's name for it; give one of the two."
    return f"{names} : {words}, {_default_words(option)}\n    {text}"


def parameters(command, python_keywords):
    """The signature's parameters: records, then every option as a keyword-only parameter
    (switches default False, others None: not given, the CLI's default applies), each scipy
    alias after its option, then the Python-only keywords."""
    P = _inspect.Parameter
    params = [P("records", P.POSITIONAL_OR_KEYWORD, annotation=_typing.Any)]
    aliases = {v: k for k, v in ALIASES.items()}
    for option in option_table(command):
        annotation, _ = _TYPES[option["type"]]
        switch = option["type"] == "switch"
        params.append(P(keyword_of(option["name"]), P.KEYWORD_ONLY, default=False if switch else None,
                        annotation=annotation if switch else _typing.Optional[annotation]))
        if option["name"] in aliases:
            params.append(P(aliases[option["name"]], P.KEYWORD_ONLY, default=None,
                            annotation=_typing.Optional[annotation]))
    for name in python_keywords:
        params.append(P(name, P.KEYWORD_ONLY, default=False, annotation=_typing.Any))
    return params


def docstring(command, summary, python_keywords):
    """`summary`, then the numpydoc Parameters and Returns sections."""
    aliases = {v: k for k, v in ALIASES.items()}
    docs = [RECORDS_DOC]
    docs += [_parameter_doc(o, aliases.get(o["name"])) for o in option_table(command)]
    docs += ["\n    ".join(_PYTHON_DOCS[name]) for name in python_keywords]
    returns = "Result\n    The analysis's tables as pandas DataFrames (docs/python.md \"Results\")."
    return (summary.strip() + "\n\nParameters\n----------\n" + "\n".join(docs) + "\n\nReturns\n-------\n" + returns
            + "\n\nRaises\n------\nTypeError\n    An unknown keyword (naming the nearest parameter), an output flag, or an option\n"
            "    given under both its names.\nUsageError\n    A bad value, naming the keyword and its flag.\n"
            "InputError\n    Bad records, naming the file, line and column (or the DataFrame's row).\n")


def check_keywords(command, keywords, known):
    """TypeError for an output flag of the CLI, an unknown keyword (naming the nearest
    parameter) or an option given under both its names."""
    for key in keywords:
        if key in OUTPUT_KEYWORDS:
            raise TypeError(f"{command}(): keyword '{key}' is an output flag of the CLI; {OUTPUT_KEYWORDS[key]}")
        if key not in known:
            nearest = _difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
            hint = (f"did you mean '{nearest[0]}'?" if nearest
                    else "its keywords are " + ", ".join(sorted(known)))
            raise TypeError(f"{command}() got an unexpected keyword argument '{key}'; {hint}")
    for alias, name in ALIASES.items():
        if keywords.get(alias) is not None and keywords.get(name) is not None:
            raise TypeError(f"{command}(): give {name} or {alias} (scipy's name for it), not both")


def options_of(keywords):
    """The keywords as options by their flags' names (snake_case, aliases resolved); None
    leaves an option out."""
    options = {}
    for key, value in keywords.items():
        if value is None:
            continue
        key = ALIASES.get(key, key)
        options[flag_of(key).replace("-", "_")] = value
    return options


def analysis_function(command, summary, run, python_keywords=("progress", "keep_replicates")):
    """judgestat.<command>: `run(command, records, progress, keep_replicates, options)` behind
    an explicit signature and docstring from the option table."""
    signature = _inspect.Signature(parameters(command, python_keywords))
    known = set(signature.parameters) - {"records"}

    def analysis(records, **keywords):
        check_keywords(command, keywords, known)
        progress = keywords.pop("progress", False)
        keep_replicates = keywords.pop("keep_replicates", False)
        return run(command, records, progress, keep_replicates, options_of(keywords))

    analysis.__name__ = analysis.__qualname__ = command
    analysis.__module__ = "judgestat"
    analysis.__signature__ = signature
    analysis.__doc__ = docstring(command, summary, python_keywords)
    return analysis
