#!/usr/bin/env python3
"""Runs every command of docs/papers.md and checks the page against the papers' audit (issue 30).

The page has a setup block (a fenced ```sh block under "## Setup") and one table per paper whose rows
are `| id | paper | what | command | where |`. This script
1. checks that the tables list each of the audit's 101 row ids exactly once, in the audit's order;
2. makes a temporary folder with links `data` and `configs` to the source tree's folders (the commands
   use those relative paths and write their outputs, e.g. synth_cap.csv and plots/, beside them);
3. runs the setup block's `judgestat …` lines, then every backticked `judgestat …` command of the
   tables, with the given binary and few replicates (`--replicates 50`, `budget --draws 200`, appended
   only where the command takes the flag and does not set it), each with a timeout;
4. checks each row's "where" column: every "quoted" text must appear in the row's output (stdout and
   stderr of its commands), every backticked path with a '/' ending in .svg/.csv/.json/.jsonl that the
   row's commands write (under plots/ or the folder) must exist afterwards.
A row whose command cell starts with "not yet" must have no command. Exit status 1 lists every failure.

With --self-test it first checks itself: made-up pages that break each rule must fail.

Usage: check_papers_commands.py --judgestat PATH --source-dir DIR [--timeout S] [--keep] [--self-test]
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# The audit's row ids (../shared/audit/seed-analyses.md), in its order: CAP then JEV.
AUDIT_IDS = [
    "CAP-T1", "CAP-CI", "CAP-T2", "CAP-T12", "CAP-T3", "CAP-A5", "CAP-F3", "CAP-4.1a", "CAP-4.1b",
    "CAP-4.1c", "CAP-T11", "CAP-C1", "CAP-C2", "CAP-C3", "CAP-T4", "CAP-4.1d", "CAP-T5", "CAP-E",
    "CAP-T13", "CAP-T14", "CAP-T6", "CAP-5", "CAP-A3", "CAP-T10", "CAP-T15", "CAP-T16", "CAP-T17",
    "CAP-T18", "CAP-T19", "CAP-T20",
    "JEV-4a", "JEV-4b", "JEV-T1", "JEV-F3", "JEV-5", "JEV-6a", "JEV-6b", "JEV-T9a", "JEV-T9b",
    "JEV-T9c", "JEV-T9d", "JEV-T9e", "JEV-T10", "JEV-T11a", "JEV-T11b", "JEV-T11c", "JEV-T11d",
    "JEV-T11e", "JEV-T11f", "JEV-T12", "JEV-6c", "JEV-T2", "JEV-T13", "JEV-T14", "JEV-T15", "JEV-F5",
    "JEV-7.1b", "JEV-T30", "JEV-7.2a", "JEV-T27", "JEV-7.3a", "JEV-7.3b", "JEV-T22", "JEV-7.3c",
    "JEV-T23", "JEV-F7ab", "JEV-T26", "JEV-T24", "JEV-T25", "JEV-7.4", "JEV-8a", "JEV-F22", "JEV-8b",
    "JEV-T28", "JEV-8c", "JEV-T3", "JEV-T4", "JEV-T29", "JEV-T36", "JEV-T31", "JEV-T33", "JEV-T5",
    "JEV-T34", "JEV-F9", "JEV-T35", "JEV-T16", "JEV-T17", "JEV-T18", "JEV-T19", "JEV-T20", "JEV-T32",
    "JEV-AppI", "JEV-AppO", "JEV-F6", "JEV-F11", "JEV-F12", "JEV-F13-14", "JEV-F15-16", "JEV-F17-19",
    "JEV-F20", "JEV-F21",
]

# Flags appended for a quick run, per command, when the command does not set them.
QUICK_FLAGS = {
    "metrics": [("--replicates", "50")],
    "profile": [("--replicates", "50")],
    "cascade": [("--replicates", "50")],
    "repeats": [("--replicates", "50")],
    "systems": [("--replicates", "50")],
    "budget": [("--draws", "200")],
}
FILE_SUFFIXES = (".svg", ".csv", ".json", ".jsonl")


def split_row(line):
    """Cells of a markdown table row; '\\|' inside a cell is not a separator."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in cells[1:-1]]


def read_page(path):
    """(setup commands, rows): rows are (id, command cell, where cell, line number)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    setup, rows, in_setup, in_block = [], [], False, False
    for number, line in enumerate(lines, 1):
        if line.startswith("## "):
            in_setup = line.strip() == "## Setup"
        if line.startswith("```"):
            in_block = not in_block
            continue
        if in_block and in_setup and line.strip().startswith("judgestat "):
            setup.append(line.strip())
        if not in_block and line.startswith("| ") and not line.startswith("| row ") and "---" not in line[:6]:
            cells = split_row(line)
            if len(cells) == 5 and re.match(r"^(CAP|JEV)-", cells[0]):
                rows.append((cells[0], cells[3], cells[4], number))
    return setup, rows


def check_ids(rows):
    failures = []
    ids = [r[0] for r in rows]
    for i in sorted(set(ids)):
        if ids.count(i) > 1:
            failures.append(f"{i}: listed {ids.count(i)} times")
    for i in AUDIT_IDS:
        if i not in ids:
            failures.append(f"{i}: missing from docs/papers.md")
    for i in ids:
        if i not in AUDIT_IDS:
            failures.append(f"{i}: not an audit row id")
    listed = [i for i in ids if i in AUDIT_IDS]
    expected = [i for i in AUDIT_IDS if i in listed]
    if len(set(listed)) == len(listed) and listed != expected:
        first = next(k for k in range(len(listed)) if listed[k] != expected[k])
        failures.append(f"rows out of the audit's order from {listed[first]} (expected {expected[first]})")
    return failures


def commands_of(cell):
    """The backticked `judgestat …` commands of a command cell."""
    return [c.replace("\\|", "|") for c in re.findall(r"`(judgestat [^`]+)`", cell)]


def quick_argv(command, judgestat):
    argv = shlex.split(command)
    argv[0] = judgestat
    sub = argv[1] if len(argv) > 1 else ""
    for flag, value in QUICK_FLAGS.get(sub, []):
        if flag not in argv:
            argv += [flag, value]
    return argv


def run(command, judgestat, cwd, timeout):
    """(ok, output, seconds)."""
    start = time.monotonic()
    try:
        done = subprocess.run(quick_argv(command, judgestat), cwd=cwd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s", time.monotonic() - start
    output = done.stdout + "\n" + done.stderr
    if done.returncode != 0:
        return False, f"exit {done.returncode}: {done.stderr.strip()[-2000:]}", time.monotonic() - start
    return True, output, time.monotonic() - start


def where_failures(where, output, cwd):
    failures = []
    for text in re.findall(r'"([^"]+)"', re.sub(r"`[^`]*`", "", where)):  # quotes inside code are code
        if text.replace("\\|", "|") not in output:
            failures.append(f'"{text}" is not in the output')
    for path in re.findall(r"`([^`\s]+)`", where):
        if "/" in path and path.endswith(FILE_SUFFIXES) and not path.startswith(("data/", "configs/")):
            if not os.path.exists(os.path.join(cwd, path)):
                failures.append(f"{path} was not written")
    return failures


def check_page(page, source, judgestat, timeout, keep=False):
    """(failures, commands run, seconds) for the page at `page`, run against the tree at `source`."""
    setup, rows = read_page(page)
    failures = check_ids(rows)
    work = tempfile.mkdtemp(prefix="papers_commands_")
    for name in ("data", "configs"):
        os.symlink(os.path.join(source, name), os.path.join(work, name))
    start, count = time.monotonic(), 0
    for command in setup:
        ok, output, _ = run(command, judgestat, work, timeout)
        count += 1
        if not ok:
            failures.append(f"setup: {command}\n    {output}")
    for row_id, cell, where, number in rows:
        commands = commands_of(cell)
        if cell.lower().startswith("not yet"):
            if commands:
                failures.append(f"{row_id} (line {number}): 'not yet' row with a command")
            continue
        if not commands:
            failures.append(f"{row_id} (line {number}): no `judgestat …` command")
            continue
        outputs, ran = [], True
        for command in commands:
            ok, output, _ = run(command, judgestat, work, timeout)
            count += 1
            if not ok:
                failures.append(f"{row_id}: {command}\n    {output}")
                ran = False
            outputs.append(output)
        if ran:
            failures += [f"{row_id}: {f}" for f in where_failures(where, "\n".join(outputs), work)]
    if keep:
        print(f"outputs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return failures, count, time.monotonic() - start


def self_test(source, judgestat, timeout):
    """Each rule the check states fails a made-up page that breaks it (and a sound page passes)."""
    header = "| row | paper | what | command | where in the output |\n|---|---|---|---|---|\n"
    good = ('| CAP-T1 | §3.1 | profile | `judgestat metrics data/examples/jev_style.csv --benchmark HE --full` '
            '| "Accuracy"; `plots/none.txt` |\n| CAP-C1 | App. C | reweighting | not yet: missing | — |\n')
    cases = {
        "sound": (good, []),
        "missing id": (good.split("\n")[0] + "\n", ["CAP-C1: missing"]),
        "listed twice": (good + good.split("\n")[0] + "\n", ["CAP-T1: listed 2 times"]),
        "unknown id": (good + "| CAP-X9 | x | x | not yet: x | — |\n", ["CAP-X9: not an audit row id"]),
        "order": (good.split("\n")[1] + "\n" + good.split("\n")[0] + "\n", ["out of the audit's order"]),
        "bad flag": (good.replace("--benchmark HE", "--no-such-flag"), ["exit 2"]),
        "text not printed": (good.replace('"Accuracy"', '"No such table"'), ['"No such table" is not in']),
        "file not written": (good.replace("plots/none.txt", "plots/none.svg"), ["plots/none.svg was not written"]),
        "not yet with command": (good.replace("not yet: missing", "not yet: `judgestat metrics x.csv`"),
                                 ["'not yet' row with a command"]),
        "no command": (good.replace("not yet: missing", "partial: by hand"), ["CAP-C1 (line"]),
    }
    ids = ["CAP-T1", "CAP-C1"]
    problems = []
    with tempfile.TemporaryDirectory(prefix="papers_selftest_") as folder:
        page = os.path.join(folder, "papers.md")
        for name, (table, expected) in cases.items():
            with open(page, "w", encoding="utf-8") as f:
                f.write("# t\n\n## CAP\n\n" + header + table)
            failures, _, _ = check_page(page, source, judgestat, timeout)
            failures = [f for f in failures if not any(f == f"{i}: missing from docs/papers.md" for i in
                                                       AUDIT_IDS if i not in ids)]
            if expected and not all(any(e in f for f in failures) for e in expected):
                problems.append(f"{name}: expected {expected}, got {failures}")
            if not expected and failures:
                problems.append(f"{name}: expected no failure, got {failures}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judgestat", required=True, help="the built judgestat binary")
    parser.add_argument("--source-dir", required=True, help="the repository root")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per command (default 60)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where")
    parser.add_argument("--self-test", action="store_true",
                        help="first check that made-up broken pages fail the check")
    args = parser.parse_args()
    judgestat = os.path.abspath(args.judgestat)
    source = os.path.abspath(args.source_dir)
    if args.self_test:
        problems = self_test(source, judgestat, args.timeout)
        if problems:
            print("self-test failed:\n  " + "\n  ".join(problems))
            return 1
        print("self-test: every broken page fails the check")
    failures, count, seconds = check_page(os.path.join(source, "docs", "papers.md"), source, judgestat,
                                          args.timeout, args.keep)
    print(f"{count} commands in {seconds:.1f} s")
    if failures:
        print(f"{len(failures)} failure(s):")
        for f in failures:
            print("  " + f)
        return 1
    print(f"docs/papers.md lists each of the {len(AUDIT_IDS)} audit rows once, in order; every command runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
