#!/usr/bin/env python3
"""Plots DDP step times, round by round, from torch_bench.py --ddp CSV files
(one per subject and round, as scripts/torch-vs-gloo.sh --ddp writes them)
into a PNG, one line per subject and layout, with gnuplot.

  scripts/plot-ddp.py -o ddp.png [--line-rate-mbps 478] [--title T] ROUND.csv...

A file's round is the number at the end of its name (railyard-3.csv).
--line-rate-mbps draws a floor as a dashed line: the gradients crossing a
host's link once at that rate, which an allreduce between two hosts cannot
beat (each host must send the other its whole sum, or the halves twice).
"""
import argparse
import csv
import os
import re
import sys
import tempfile

from gnuplot_png import line_clauses, quoted, require_gnuplot, run_gnuplot


def fail(message):
    print(f"plot-ddp.py: {message}", file=sys.stderr)
    sys.exit(1)


def read_lines(paths):
    """{"railyard, 2 x 1": [(round, step ms)]} from the round files, and the
    gradients' bytes."""
    lines = {}
    sizes = set()
    for path in paths:
        match = re.search(r"-(\d+)\.csv$", path)
        if match is None:
            fail(f"{path}: expected a round file named SUBJECT-ROUND.csv")
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                rows = [r for r in csv.DictReader(handle) if r.get("operation") == "ddp_step"]
        except OSError as error:
            fail(f"{path}: {error.strerror}")
        if not rows:
            fail(f"{path}: no ddp_step row (is it torch_bench.py --ddp's CSV?)")
        for row in rows:
            try:
                hosts = int(row["hosts"])
                per_host = int(row["ranks"]) // hosts
                step_ms = float(row["time_us"]) / 1000
                sizes.add(int(row["size"]))
            except (KeyError, ValueError) as error:
                fail(f"{path}: a row without hosts, ranks or time_us ({error})")
            name = f"{row['subject']}, {hosts} x {per_host}"
            lines.setdefault(name, []).append((int(match.group(1)), step_ms))
    if len(sizes) != 1:
        fail(f"the files time models of different sizes: {sorted(sizes)} bytes")
    return {name: sorted(points) for name, points in lines.items()}, sizes.pop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--line-rate-mbps", type=float)
    parser.add_argument("--title", default="DDP step time (torch.distributed)")
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()
    require_gnuplot(fail)
    lines, size = read_lines(options.files)
    with tempfile.TemporaryDirectory() as directory:
        clauses = line_clauses(directory, "ddp", lines)
        if options.line_rate_mbps is not None:
            bound_ms = size / (options.line_rate_mbps * 1e3)
            clauses.append(f'{bound_ms:.1f} with lines dashtype 2 lc "black" title '
                           f'"{size / 1e6:.0f} MB of gradients at the line rate ({bound_ms:.0f} ms)"')
        rounds = max(r for points in lines.values() for r, _ in points)
        run_gnuplot([
            f'set terminal pngcairo size 900,560 font ",11"',
            f'set output "{quoted(os.path.abspath(options.output))}"',
            f'set title "{quoted(options.title)}"',
            'set xlabel "round"',
            'set ylabel "step time (ms)"',
            f"set xrange [0.5:{rounds + 0.5}]",
            "set xtics 1",
            "set yrange [0:*]",
            "set grid",
            "set key right bottom box opaque",
            "plot " + ", ".join(clauses),
        ], fail)
    print(f"plot-ddp.py: wrote {options.output} ({len(lines)} lines)")


if __name__ == "__main__":
    main()
