"""What plot-busbw.py and plot-mrail.py share: gnuplot found or a clear
error, one data file per line, the axes of a size sweep, and gnuplot run on
a script with its error passed on."""
import os
import shutil
import subprocess

# A size sweep's x axis: powers of two, labelled 64K, 1M, ...
SIZE_AXIS = [
    "set logscale x 2",
    "set format x '%.0b%B'",
    'set xlabel "size (bytes)"',
    "set grid",
    "set key left top",
]


def quoted(text):
    """Text safe inside a gnuplot double-quoted string."""
    return text.replace('"', "'")


def require_gnuplot(fail):
    if shutil.which("gnuplot") is None:
        fail("gnuplot is not installed (Debian package gnuplot-nox; scripts/install-deps.sh installs it)")


def line_clauses(directory, prefix, lines):
    """Writes each {name: [(x, y)]} line to a data file in directory and
    returns the plot clauses that draw them, in name order."""
    clauses = []
    for index, (name, points) in enumerate(sorted(lines.items())):
        data = os.path.join(directory, f"{prefix}-{index}.dat")
        with open(data, "w", encoding="utf-8") as handle:
            handle.writelines(f"{x} {y}\n" for x, y in points)
        clauses.append(f'"{data}" using 1:2 with linespoints title "{quoted(name)}"')
    return clauses


def run_gnuplot(script_lines, fail):
    result = subprocess.run(["gnuplot"], input="\n".join(script_lines), text=True,
                            capture_output=True, check=False)
    if result.returncode != 0:
        fail(f"gnuplot failed: {result.stderr.strip()}")
