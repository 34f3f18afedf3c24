#!/usr/bin/env python3
"""The include rules of README "Layout", checked on the source tree. Prints each breach; exits 1 if any.

1. Includes point one way, down the pipeline: a file in host/ROOM (ROOM = the first folder under
   host/, at any depth below it) or kernels/ may include only its own room and the rooms below it.
2. The public headers (include/judgestat/) are what an installed judgestat gives, so
   a. they include only each other and system headers (never a private host/ header), and
   b. their code is in an installed target: no function they declare is defined in a room left
      out of judgestat_core. The rooms left out are read from CMakeLists.txt (the EXCLUDE REGEX
      on JUDGESTAT_HOST_SOURCES; today host/cli/); a definition is a line at column 0 that names
      a public function and opens its body ("NAME(…) {" or "NAME(…" continued to a "{" line).
3. The Python module (python/src/) builds on the public headers only: its quoted includes are
   "judgestat/…" or its own files.
"""
import pathlib, re, sys

# Lowest first. Engines share a level: cpu, cuda (kernels/), split and ranks (distributed/). The
# request layer (requests/: the analyses' flags parsed into typed options, run_analysis) sits on
# the report writers; the CLI and the studies, which ask for analyses through it, share the top.
LEVELS = [["support"], ["records"], ["sources"], ["plan"], ["engine", "distributed", "kernels"], ["intervals"],
          ["analyses"], ["report"], ["requests"], ["cli", "study"]]
level_of = {room: i for i, rooms in enumerate(LEVELS) for room in rooms}
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh"}
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
bad = []


def quoted_includes(path):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            yield number, m.group(1), line.strip()


def sources(folder):
    return sorted(p for p in (root / folder).glob("**/*") if p.suffix in SOURCE_SUFFIXES and p.is_file())


# 1. Down the pipeline.
for path in sources("host") + sources("kernels"):
    parts = path.relative_to(root).parts
    room = "kernels" if parts[0] == "kernels" else parts[1]
    for number, target, line in quoted_includes(path):
        first = target.split("/")[0]
        if first in level_of and room in level_of and level_of[first] > level_of[room]:
            bad.append(f"{path.relative_to(root)}:{number}: {room} includes {first} ({line})")

# 2a. Public headers are self-contained.
public = sources("include/judgestat")
for path in public:
    for number, target, line in quoted_includes(path):
        if not target.startswith("judgestat/"):
            bad.append(f"{path.relative_to(root)}:{number}: a public header includes a private one ({line})")

# 2b. Their code is installed: the rooms judgestat_core leaves out define none of their functions.
cmake = (root / "CMakeLists.txt").read_text()
excluded = re.search(r'list\(FILTER JUDGESTAT_HOST_SOURCES EXCLUDE REGEX "([^"]+)"\)', cmake)
if not excluded:
    bad.append("CMakeLists.txt: no `list(FILTER JUDGESTAT_HOST_SOURCES EXCLUDE REGEX \"…\")` to tell the rooms "
               "judgestat_core leaves out")
else:
    left_out = [room.name for room in sorted((root / "host").iterdir())
                if room.is_dir() and re.search(excluded.group(1), f"/host/{room.name}/")]
    declared = set()
    for path in public:
        # Free functions: a declaration at namespace scope (no indentation) "… NAME(" ending in ";".
        for m in re.finditer(r"^(?!\s|//|#|using|return|struct|class|enum|namespace|template)[^;{}()=]*?\b(\w+)\(",
                             path.read_text(), re.M):
            declared.add(m.group(1))
    for room in left_out:
        for path in sources(f"host/{room}"):
            lines = path.read_text().splitlines()
            for number, line in enumerate(lines, 1):
                m = re.match(r"^(?!\s|//|#|return|struct|class|namespace)[\w:<>,&*\s]*?\b(\w+)\(", line)
                if not m or m.group(1) not in declared:
                    continue
                opens = line.rstrip().endswith("{") or any(
                    l.rstrip().endswith("{") for l in lines[number:number + 3] if not l.rstrip().endswith(";"))
                if opens and not line.rstrip().endswith(";"):
                    bad.append(f"{path.relative_to(root)}:{number}: defines {m.group(1)}(), declared in a public "
                               f"header, in host/{room}/, which judgestat_core leaves out (move it to an installed room)")

# 3. Python sees only what is installed.
for path in sources("python/src"):
    for number, target, line in quoted_includes(path):
        if not target.startswith("judgestat/") and not (path.parent / target).is_file():
            bad.append(f"{path.relative_to(root)}:{number}: the Python module includes a private header ({line}); "
                       "make what it needs public in include/judgestat/")

print("\n".join(bad) if bad else
      "includes: every room includes only itself and the rooms below it; the public headers are installed "
      "and self-contained; the Python module uses only them")
sys.exit(1 if bad else 0)
