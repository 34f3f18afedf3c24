#!/usr/bin/env python3
"""Includes point one way, down the pipeline (README "Layout"): a file in host/ROOM may include
only its own room and the rooms below it. Prints each include that points up; exits 1 if any."""
import pathlib, re, sys

# Lowest first. Engines share a level: cpu, cuda (kernels/), split and ranks (distributed/); the CLI
# and the studies (study/, which ask for analyses with the CLI's flags) share the top.
LEVELS = [["support"], ["records"], ["sources"], ["plan"], ["engine", "distributed", "kernels"], ["intervals"],
          ["analyses"], ["report"], ["cli", "study"]]
level_of = {room: i for i, rooms in enumerate(LEVELS) for room in rooms}
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
bad = []
for path in sorted(list(root.glob("host/*/*")) + list(root.glob("kernels/**/*"))):
    if path.suffix not in {".cpp", ".hpp", ".cu", ".cuh"}:
        continue
    room = "kernels" if path.parts[len(root.parts)] == "kernels" else path.parts[len(root.parts) + 1]
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s+"([a-z_]+)/', line)
        if m and m.group(1) in level_of and level_of[m.group(1)] > level_of[room]:
            bad.append(f"{path.relative_to(root)}:{number}: {room} includes {m.group(1)} ({line.strip()})")
print("\n".join(bad) if bad else "includes: every room includes only itself and the rooms below it")
sys.exit(1 if bad else 0)
