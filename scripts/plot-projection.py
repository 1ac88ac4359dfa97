#!/usr/bin/env python3
"""Plots the cost model's projection of railyard against Open MPI's own
choices, modelled alike: one panel per job shape, one line per collective,
from the JSON of `railyard-info --algorithms --hosts H --ranks-per-host R
--json` (one file per shape), into a PNG with gnuplot.

  scripts/plot-projection.py -o projection.png 2x8.json 8x8.json 64x8.json 512x8.json

A point is Open MPI's predicted time over railyard's (above 1: railyard
is faster), for the algorithm each would choose; the dashed line marks 1.
"""
import argparse
import json
import sys
import tempfile

from gnuplot_png import SIZE_AXIS, line_clauses, require_gnuplot, run_gnuplot, quoted


def fail(message):
    print(f"plot-projection.py: {message}", file=sys.stderr)
    sys.exit(1)


def panel_of(path):
    """(title, {collective: [(size, Open MPI time / railyard time)]})."""
    try:
        with open(path, encoding="utf-8") as handle:
            report = json.load(handle)
        hosts, per_host = report["hosts"], report["ranks_per_host"]
        lines = {}
        for entry in report["collectives"]:
            points = [(row["bytes"], row["openmpi_us"] / row["predicted_us"])
                      for row in entry["sizes"] if row["bytes"] > 0 and row["predicted_us"] > 0]
            if points:
                lines[entry["collective"]] = points
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as error:
        fail(f"{path}: {error}: expected railyard-info --algorithms --hosts ... --json output")
    if not lines:
        fail(f"{path}: no collective with a size above 0")
    return f"{hosts} hosts x {per_host} ranks ({hosts * per_host} ranks)", lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", nargs="+", help="railyard-info projections, one per job shape")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    args = parser.parse_args()
    require_gnuplot(fail)
    panels = [panel_of(path) for path in args.json]
    columns = 2 if len(panels) > 1 else 1
    rows = (len(panels) + columns - 1) // columns
    with tempfile.TemporaryDirectory() as directory:
        script = [
            f"set terminal pngcairo size {700 * columns},{450 * rows} noenhanced",
            f'set output "{args.output}"',
            f"set multiplot layout {rows},{columns} "
            'title "Projected: Open MPI time / railyard time (the cost model, each side\'s choice)"',
            *SIZE_AXIS,
            'set ylabel "Open MPI / railyard"',
            "set logscale y 2",
            "set key outside right font ',8'",
        ]
        for index, (title, lines) in enumerate(panels):
            plots = line_clauses(directory, f"panel{index}", lines)
            plots.append('1 with lines dashtype 2 linecolor rgb "black" title "level"')
            script += [f'set title "{quoted(title)}"', "plot " + ", ".join(plots)]
        script.append("unset multiplot")
        run_gnuplot(script, fail)
    print(f"plot-projection.py: wrote {args.output} ({len(panels)} shapes)")


if __name__ == "__main__":
    main()
