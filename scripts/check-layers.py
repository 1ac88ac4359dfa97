#!/usr/bin/env python3
"""Checks that the library's layers depend one way.

Each folder of railyard/ is a layer; CMakeLists.txt lists them in
RAILYARD_LAYERS, lowest first. A file of a layer may include the headers of
its own layer and of the layers listed before it, never of a layer after
it, and every "railyard/..." include must name a file of the tree. The
layers on top (TOP_LAYERS) and the examples use the other layers only
through their installed headers (each layer's railyard_install_headers
list) and the library's shared plumbing in common/detail/ (the logger, the
variable parsers). No source file of the library is longer than MAX_LINES
lines: a file that grows past it holds more than one responsibility.

usage: check-layers.py [source root]
Prints each offending include and exits 1, or prints a summary and exits 0.
"""

import os
import re
import sys

MAX_LINES = 600
INCLUDE = re.compile(r'^\s*#\s*include\s+"(railyard/[^"]+)"')
INSTALL = re.compile(r"railyard_install_headers\(\s*(\w+)([^)]*)\)")
TOP_LAYERS = ("c_api", "mpi_shim", "torch")
PLUMBING = "railyard/common/detail/"


def layer_order(root):
    text = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
    found = re.search(r"set\(RAILYARD_LAYERS([^)]*)\)", text)
    if not found:
        sys.exit("check-layers: CMakeLists.txt sets no RAILYARD_LAYERS")
    return found.group(1).split()


def installed_headers(root, layers):
    """Every header a layer's CMakeLists.txt installs, as "railyard/<layer>/<file>"."""
    installed = set()
    for layer in layers:
        path = os.path.join(root, "railyard", layer, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        for match in INSTALL.finditer(open(path, encoding="utf-8").read()):
            installed.update(f"railyard/{match.group(1)}/{name}" for name in match.group(2).split())
    return installed


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    layers = layer_order(root)
    rank = {layer: index for index, layer in enumerate(layers)}
    installed = installed_headers(root, layers)
    library = os.path.join(root, "railyard")
    on_disk = set(os.listdir(library)) - {"CMakeLists.txt"}
    problems = []
    for missing in sorted(on_disk - set(layers)):
        problems.append(f"railyard/{missing}/ is not in RAILYARD_LAYERS (CMakeLists.txt)")
    checked = 0
    for top in ("railyard", "tools", "bench", "examples", "tests", "fuzz"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".c")):
                    continue
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root)
                parts = relative.split(os.sep)
                own = parts[1] if parts[0] == "railyard" else None
                with open(path, encoding="utf-8") as source:
                    lines = source.readlines()
                    if parts[0] == "railyard" and len(lines) > MAX_LINES:
                        problems.append(f"{relative}: {len(lines)} lines, more than {MAX_LINES}")
                    for number, line in enumerate(lines, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        checked += 1
                        target = match.group(1)
                        if not os.path.isfile(os.path.join(root, target)):
                            problems.append(f"{relative}:{number}: includes {target}, "
                                            "which is not a file of the tree")
                            continue
                        other = target.split("/")[1]
                        if own in rank and other in rank and rank[other] > rank[own]:
                            problems.append(
                                f"{relative}:{number}: the {own} layer includes {target} "
                                f"from the {other} layer above it (RAILYARD_LAYERS: "
                                f"{' '.join(layers)})")
                        on_top = own in TOP_LAYERS or parts[0] == "examples"
                        if (on_top and other != own and target not in installed
                                and not target.startswith(PLUMBING)):
                            problems.append(
                                f"{relative}:{number}: includes {target}, which is internal "
                                f"to the {other} layer: {own or parts[0]} uses the installed "
                                "headers only")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"layers: {checked} includes checked, every one resolves and points down "
          f"({' < '.join(layers)}); {', '.join(TOP_LAYERS)} and the examples use installed "
          f"headers only; no library file over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
