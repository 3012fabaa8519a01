#!/usr/bin/env python3
"""The house order of src/ (DESIGN.md): imports run down the house only.

Reads every `crate::` path in src/ (in `use` lines, `use crate::{...}` groups and paths
written inline; comments and string literals are skipped) and fails, naming the file, on
  - an import from a folder into one of the same or a higher layer than its own, and
  - any circle of imports between folders, or between two files of one folder
    (`use super::x` in a and `use super::a` in x).

The layers, top first: the command line (`main.rs`, `cli/`) and playing for a GUI (`play/`)
at the top, the tools beneath them, the protocol's types, the search in the middle, the
evaluation, and what everything stands on at the ground.

    python3 scripts/check_imports.py [SRC]     # SRC defaults to src/ beside this script
"""

import os
import re
import sys

LAYERS = [
    ["main", "cli"],
    ["play"],
    ["measure", "learn", "tree"],
    ["uci"],
    ["search", "connect4"],
    ["eval"],
    ["basics", "negamax"],
]
LEVEL = {name: len(LAYERS) - i for i, names in enumerate(LAYERS) for name in names}

# A string literal (with escapes) or a comment, to blank out before looking for paths.
NOISE = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
CRATE_PATH = re.compile(r"\bcrate::(\w+)(?:::(\w+))?")
GROUP = re.compile(r"\buse\s+crate::\{([^}]*)\}")
SUPER = re.compile(r"\buse\s+super::(?:\{([^}]*)\}|(\w+))")


def strip(text):
    return NOISE.sub(lambda m: " " * len(m.group(0)) if m.group(0).startswith("/") else '""', text)


def folder_and_file(src, path):
    rel = os.path.relpath(path, src).split(os.sep)
    if len(rel) == 1:
        return rel[0][:-3], None
    name = rel[1][:-3] if len(rel) == 2 else rel[1]
    return rel[0], (None if name == "mod" else name)


def read_imports(src):
    """Folder edges {(from, to): [file, ...]} and file edges inside folders."""
    folders, files = {}, {}
    for root, _, names in os.walk(src):
        for n in sorted(names):
            if not n.endswith(".rs"):
                continue
            path = os.path.join(root, n)
            folder, file = folder_and_file(src, path)
            with open(path, encoding="utf-8") as f:
                text = strip(f.read())
            targets = set()
            for m in CRATE_PATH.finditer(text):
                targets.add(m.group(1))
            for m in GROUP.finditer(text):
                for part in m.group(1).split(","):
                    head = part.strip().split("::")[0].strip()
                    if head:
                        targets.add(head)
            for t in targets - {folder, "self"}:
                folders.setdefault((folder, t), []).append(os.path.relpath(path, src))
            # Files of one folder (a `use super::x` in a file directly in the folder).
            if file is not None and len(os.path.relpath(path, src).split(os.sep)) == 2:
                for m in SUPER.finditer(text):
                    heads = (m.group(1) or m.group(2)).split(",")
                    for h in heads:
                        h = h.strip().split("::")[0].strip()
                        if h and h not in ("self", "*", file):
                            files.setdefault(folder, set()).add((file, h))
    return folders, files


def cycles(edges):
    """Every circle of the directed graph `edges` (pairs), each once, as a node list."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    found, seen = [], set()

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                key = frozenset(path)
                if key not in seen:
                    seen.add(key)
                    found.append(path + [start])
            elif nxt not in path and nxt > start:
                walk(start, nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(here), "src")
    folders, files = read_imports(src)
    errors = []
    for (a, b), where in sorted(folders.items()):
        if a not in LEVEL or b not in LEVEL:
            unknown = a if a not in LEVEL else b
            errors.append(f"{where[0]}: folder '{unknown}' has no layer in scripts/check_imports.py")
        elif LEVEL[b] >= LEVEL[a]:
            errors.append(
                f"{', '.join(sorted(set(where)))}: {a}/ imports {b}/, which is not below it"
            )
    for c in cycles(folders.keys()):
        errors.append("circle of folders: " + " -> ".join(c))
    for folder, edges in sorted(files.items()):
        for c in cycles(edges):
            errors.append(f"circle of files in {folder}/: " + " -> ".join(c))
    for e in errors:
        print(f"check_imports: {e}", file=sys.stderr)
    if errors:
        return 1
    count = len({a for a, _ in folders} | {b for _, b in folders})
    print(f"check_imports: {len(folders)} imports between {count} folders run down the house")
    return 0


if __name__ == "__main__":
    sys.exit(main())
