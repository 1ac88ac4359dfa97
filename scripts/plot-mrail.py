#!/usr/bin/env python3
"""Plots a railyard-mrail-bench --json run into a PNG with gnuplot: bandwidth
(MB/s) and latency (us, half round trip) against size, one line per subject,
side by side.

  scripts/plot-mrail.py -o p2p.png results.json
  scripts/plot-mrail.py -o p2p.png --title "2 hosts, 4 rails at 1 Gbit/s" \
      --label raw="one rail" results.json

Subjects the bench marked misconfigured (an "error" in the JSON) are left
out, as the bench leaves them out of its ratios.
"""
import argparse
import json
import sys
import tempfile

from gnuplot_png import SIZE_AXIS, line_clauses, quoted, require_gnuplot, run_gnuplot


def fail(message):
    print(f"plot-mrail.py: {message}", file=sys.stderr)
    sys.exit(1)


def read_subjects(path):
    """{subject: [(size, bandwidth MB/s or None, latency us or None)]}."""
    try:
        with open(path, encoding="utf-8") as handle:
            run = json.load(handle)
        subjects = {}
        for subject in run["subjects"]:
            if subject.get("error"):
                continue
            points = [(r["size"], r.get("bandwidth_MBps"), r.get("latency_us"))
                      for r in subject["results"] if r["size"] > 0]
            if points:
                subjects[subject["name"]] = sorted(points)
    except OSError as error:
        fail(f"{path}: {error.strerror}")
    except (ValueError, KeyError, TypeError) as error:
        fail(f"{path}: {error!r}: expected railyard-mrail-bench --json output")
    if not subjects:
        fail(f"{path}: no subject with results")
    return subjects


def lines_of(subjects, column, labels):
    """{name in the key: [(size, value)]} where the column has a value."""
    lines = {}
    for subject, points in subjects.items():
        rows = [(size, values[column]) for size, *values in points if values[column] is not None]
        if rows:
            lines[labels.get(subject, subject)] = rows
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="a railyard-mrail-bench --json file")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--title", default="point to point", help="the plot's title")
    parser.add_argument("--label", action="append", default=[], metavar="SUBJECT=NAME",
                        help="the name a subject has in the key (repeatable)")
    args = parser.parse_args()
    labels = {}
    for label in args.label:
        subject, sep, name = label.partition("=")
        if not sep or not subject or not name:
            fail(f"--label '{label}' is invalid: expected SUBJECT=NAME, e.g. raw=\"one rail\"")
        labels[subject] = name
    require_gnuplot(fail)
    subjects = read_subjects(args.json)
    with tempfile.TemporaryDirectory() as directory:
        bandwidth = line_clauses(directory, "bandwidth", lines_of(subjects, 0, labels))
        latency = line_clauses(directory, "latency", lines_of(subjects, 1, labels))
        script = [
            "set terminal pngcairo size 1200,500",
            f'set output "{args.output}"',
            f'set multiplot layout 1,2 title "{quoted(args.title)}"',
            *SIZE_AXIS,
        ]
        if bandwidth:
            script += ['set title "bandwidth (window of 64)"', 'set ylabel "MB/s"',
                       "set yrange [0:*]", "plot " + ", ".join(bandwidth)]
        if latency:
            script += ['set title "latency"', 'set ylabel "us, half round trip"',
                       "set logscale y 2", "set yrange [*:*]", "plot " + ", ".join(latency)]
        script.append("unset multiplot")
        run_gnuplot(script, fail)
    print(f"plot-mrail.py: wrote {args.output} ({len(subjects)} subjects)")


if __name__ == "__main__":
    main()
