#!/usr/bin/env python3
"""Which translation units clang-tidy must look at.

A full clang-tidy pass takes over 20 CPU-minutes on this project, most of
the CI's time on 2 cores. A translation unit whose source and headers are
unchanged since a full pass found the tree clean cannot have new findings
(same checks, same clang-tidy), so only the others are checked:

  .ci/tidy-baseline   the commit of the last clean full pass, and the
                      clang-tidy version that made it (check-style.sh
                      tidy-record writes it)

Every unit is checked when there is no baseline, when its commit is not in
this clone's history, when the clang-tidy version differs, when anything
that changes what tidy does changed (.clang-tidy, the scripts, the build's
flags), or when RAILYARD_TIDY_ALL=1. A unit whose dependency file is
missing is checked.

A unity build compiles several sources in one unit: its compile commands
are expanded into one entry per source, with the unit's flags (less GCC's
precompiled header, which clang cannot read), written to
<build dir>/tidy/compile_commands.json for clang-tidy (-p <build dir>/tidy),
and a source counts as including whatever its unit included.

usage: tidy_scope.py <build dir> <layer regex>
Prints one absolute path per line; says why on stderr.
"""

import json
import os
import re
import shlex
import subprocess
import sys

# Files whose change can change any unit's findings.
GLOBAL_INPUTS = re.compile(
    r"^(\.clang-tidy|scripts/check-style\.sh|scripts/tidy_scope\.py|CMakeLists\.txt|"
    r"CMakePresets\.json|cmake/.*)$"
)


def git(root, *args):
    return subprocess.run(
        ["git", "-C", root, *args], capture_output=True, text=True, check=False
    )


def tidy_version():
    out = subprocess.run(
        ["clang-tidy", "--version"], capture_output=True, text=True, check=False
    ).stdout
    found = re.search(r"version (\S+)", out)
    return found.group(1) if found else "unknown"


def depfile_of(entry):
    """The compiler's dependency file for a compile_commands entry."""
    args = shlex.split(entry["command"])
    if "-o" not in args:
        return None
    output = args[args.index("-o") + 1]
    return os.path.join(entry["directory"], output + ".d")


def dependencies(depfile):
    """Every file a unit read, resolved (headers are reached through symlinks)."""
    with open(depfile, encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    _, _, files = text.partition(":")
    return {os.path.realpath(path) for path in files.split()}


UNITY_SOURCE = re.compile(r'^#include "(.+)"$', re.M)
# GCC's precompiled header for the tests: clang cannot read GCC's .gch, so
# clang-tidy compiles each source with its own includes.
GCC_PCH = re.compile(r"\s-Winvalid-pch|\s-include\s+\S*cmake_pch\.hxx")


def expanded(entries):
    """One entry per source: a unity unit's entry copied for each source it
    includes, each keeping the unit's dependency file."""
    out = []
    for entry in entries:
        entry = dict(entry, command=GCC_PCH.sub("", entry["command"]))
        unit = entry["file"]
        if "/Unity/unity_" not in unit:
            out.append(dict(entry, depfile=depfile_of(entry)))
            continue
        with open(unit, encoding="utf-8") as f:
            sources = UNITY_SOURCE.findall(f.read())
        for source in sources:
            out.append(
                dict(
                    entry,
                    file=source,
                    command=entry["command"].replace(unit, source),
                    depfile=depfile_of(entry),
                )
            )
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tidy_scope.py <build dir> <layer regex>")
    build, layers = sys.argv[1], re.compile(sys.argv[2])
    root = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        every = expanded(json.load(f))
    os.makedirs(os.path.join(build, "tidy"), exist_ok=True)
    with open(os.path.join(build, "tidy", "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump([{k: v for k, v in e.items() if k != "depfile"} for e in every], f, indent=1)
    # C and C++ units only: the build also compiles Fortran test programs.
    entries = [
        e for e in every if layers.search(e["file"]) and e["file"].endswith((".c", ".cc", ".cpp"))
    ]
    units = sorted({os.path.realpath(e["file"]) for e in entries})

    def everything(why):
        print(f"tidy scope: all {len(units)} units ({why})", file=sys.stderr)
        print("\n".join(units))

    if os.environ.get("RAILYARD_TIDY_ALL") == "1":
        return everything("RAILYARD_TIDY_ALL=1")
    baseline_path = os.path.join(root, ".ci", "tidy-baseline")
    if not os.path.exists(baseline_path):
        return everything("no .ci/tidy-baseline")
    with open(baseline_path, encoding="utf-8") as f:
        fields = dict(
            line.strip().split("=", 1)
            for line in f
            if "=" in line and not line.lstrip().startswith("#")
        )
    commit, version = fields.get("commit", ""), fields.get("clang-tidy", "")
    if version != tidy_version():
        return everything(f"baseline made by clang-tidy {version}, this is {tidy_version()}")
    if git(root, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        return everything(f"baseline commit {commit!r} is not in this clone")
    diff = git(root, "diff", "--name-only", commit)
    untracked = git(root, "ls-files", "--others", "--exclude-standard")
    if diff.returncode != 0 or untracked.returncode != 0:
        return everything("git cannot compare with the baseline")
    changed = set(diff.stdout.split()) | set(untracked.stdout.split())
    if any(GLOBAL_INPUTS.match(path) for path in changed):
        return everything("the checks or the build's flags changed since the baseline")
    changed_paths = {os.path.realpath(os.path.join(root, path)) for path in changed}

    chosen = set()
    for entry in entries:
        unit = os.path.realpath(entry["file"])
        depfile = entry["depfile"]
        if unit in changed_paths or depfile is None or not os.path.exists(depfile):
            chosen.add(unit)
        elif dependencies(depfile) & changed_paths:
            chosen.add(unit)
    print(
        f"tidy scope: {len(chosen)} of {len(units)} units changed, or include a file"
        f" that changed, since the clean pass at {commit[:12]}",
        file=sys.stderr,
    )
    if chosen:
        print("\n".join(sorted(chosen)))
    return None


if __name__ == "__main__":
    main()
