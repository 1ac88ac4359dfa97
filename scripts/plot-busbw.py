#!/usr/bin/env python3
"""Plots bus bandwidth against size from railyard-bench CSV files into a PNG,
one line per subject (and per operation or rank count, when the files hold
several), with gnuplot.

  scripts/plot-busbw.py -o busbw.png railyard.csv openmpi.csv
  scripts/plot-busbw.py -o busbw.png --placement in-place --title "4 ranks" *.csv
  scripts/plot-busbw.py -o busbw.png --line-rate 0.478 railyard.csv openmpi.csv

--line-rate draws the rails' line rate (GB/s) as a dashed line.
"""
import argparse
import csv
import sys
import tempfile

from gnuplot_png import SIZE_AXIS, line_clauses, quoted, require_gnuplot, run_gnuplot

REQUIRED = ("subject", "operation", "ranks", "size", "placement", "busbw_gbps")


def fail(message):
    print(f"plot-busbw.py: {message}", file=sys.stderr)
    sys.exit(1)


def read_rows(paths, placement):
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as handle:
                reader = csv.DictReader(handle)
                missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
                if missing:
                    fail(f"{path}: no column {', '.join(missing)}: expected railyard-bench --csv output")
                for line, row in enumerate(reader, start=2):
                    if row["placement"] != placement:
                        continue
                    try:
                        rows.append((row["subject"], row["operation"], int(row["ranks"]),
                                     int(row["size"]), float(row["busbw_gbps"])))
                    except ValueError as error:
                        fail(f"{path}:{line}: {error}")
        except OSError as error:
            fail(f"{path}: {error.strerror}")
    if not rows:
        fail(f"no {placement} rows in {', '.join(paths)}")
    return rows


def series_of(rows):
    """Rows grouped by line; a line's name says only what differs."""
    operations = {r[1] for r in rows}
    rank_counts = {r[2] for r in rows}
    series = {}
    for subject, operation, ranks, size, busbw in rows:
        name = subject
        if len(operations) > 1:
            name += f" {operation}"
        if len(rank_counts) > 1:
            name += f" {ranks} ranks"
        if size > 0:  # a log scale has no 0
            series.setdefault(name, []).append((size, busbw))
    return {name: sorted(points) for name, points in series.items() if points}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+", help="railyard-bench --csv files")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--placement", default="out-of-place", choices=("out-of-place", "in-place"))
    parser.add_argument("--title", default="", help="the plot's title")
    parser.add_argument("--line-rate", type=float, default=0.0,
                        help="the rails' line rate in GB/s, drawn as a dashed line (0: none)")
    parser.add_argument("--line-rate-title", default="rails' line rate",
                        help="the line rate's name in the key")
    args = parser.parse_args()
    require_gnuplot(fail)
    series = series_of(read_rows(args.csv, args.placement))
    if not series:
        fail("every row has size 0: nothing to plot on a log scale")
    with tempfile.TemporaryDirectory() as directory:
        plots = line_clauses(directory, "busbw", series)
        if args.line_rate > 0:
            plots.append(f'{args.line_rate} with lines dashtype 2 linecolor rgb "black" '
                         f'title "{quoted(args.line_rate_title)}"')
        title = quoted(args.title or f"bus bandwidth, {args.placement}")
        run_gnuplot([
            "set terminal pngcairo size 1000,600",
            f'set output "{args.output}"',
            f'set title "{title}"',
            *SIZE_AXIS,
            'set ylabel "busbw (GB/s)"',
            "set yrange [0:*]",
            "plot " + ", ".join(plots),
        ], fail)
    print(f"plot-busbw.py: wrote {args.output} ({len(series)} line{'s' if len(series) != 1 else ''})")


if __name__ == "__main__":
    main()
