#!/usr/bin/env python3
"""Plots railyard's speed against a baseline's, per size, one line per
collective, from the combined CSVs of scripts/collectives-vs-openmpi.sh runs
(one run per collective, all of one layout), into a PNG with gnuplot.

  scripts/plot-ratios.py -o 2x1.png --title "2 hosts x 1 rank" \\
      [--baseline "Open MPI tuned"] [--subject railyard] [--time slowest|average] \\
      run/*/op-2x1.csv

A point is the baseline's median time over the subject's (above 1: the
subject, railyard unless --subject names another, e.g. "Open MPI +
railyard shim", is faster), out of place; the dashed line marks 1.
"""
import argparse
import csv
import sys
import tempfile

from gnuplot_png import SIZE_AXIS, line_clauses, require_gnuplot, run_gnuplot, quoted

TIME_COLUMNS = {"average": "time_us", "slowest": "max_time_us"}


def fail(message):
    print(f"plot-ratios.py: {message}", file=sys.stderr)
    sys.exit(1)


def ratios_of(paths, subject, baseline, column):
    """{operation: [(size, baseline time / subject time)]}."""
    times = {}
    for path in paths:
        try:
            with open(path, newline="") as handle:
                for row in csv.DictReader(handle):
                    if row.get("placement") != "out-of-place":
                        continue
                    key = (row["operation"], int(row["size"]))
                    times.setdefault(key, {})[row["subject"]] = float(row[column] or row["time_us"])
        except (OSError, KeyError, ValueError) as error:
            fail(f"{path}: {error}: expected a combined railyard-bench CSV")
    lines = {}
    for (operation, size), subjects in sorted(times.items()):
        if size > 0 and subject in subjects and baseline in subjects and subjects[subject] > 0:
            lines.setdefault(operation, []).append((size, subjects[baseline] / subjects[subject]))
    if not lines:
        fail(f"no size with both '{subject}' and '{baseline}' in {', '.join(paths)}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+", help="combined CSVs, one per collective")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--title", default="", help="the plot's title")
    parser.add_argument("--baseline", default="Open MPI tuned", help="the subject compared with")
    parser.add_argument("--subject", default="railyard", help="the subject compared")
    parser.add_argument("--time", default="slowest", choices=sorted(TIME_COLUMNS))
    args = parser.parse_args()
    require_gnuplot(fail)
    lines = ratios_of(args.csv, args.subject, args.baseline, TIME_COLUMNS[args.time])
    with tempfile.TemporaryDirectory() as directory:
        plots = line_clauses(directory, "ratio", lines)
        plots.append('1 with lines dashtype 2 linecolor rgb "black" title "level"')
        title = args.title or f"{args.subject} against {args.baseline}"
        run_gnuplot([
            "set terminal pngcairo size 1000,600 noenhanced",
            f'set output "{args.output}"',
            f'set title "{quoted(title)}"',
            *SIZE_AXIS,
            f'set ylabel "{quoted(args.baseline)} time / {quoted(args.subject)} time '
            f'({args.time} rank)"',
            "set logscale y 2",
            "set key outside right",
            "plot " + ", ".join(plots),
        ], fail)
    print(f"plot-ratios.py: wrote {args.output} ({len(lines)} collectives)")


if __name__ == "__main__":
    main()
