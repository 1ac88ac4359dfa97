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
import os
import shutil
import subprocess
import sys
import tempfile


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


def data_files(directory, subjects, column, labels):
    """One data file per subject holding (size, value) where the value exists."""
    plots = []
    for index, (subject, points) in enumerate(sorted(subjects.items())):
        name = labels.get(subject, subject).replace('"', "'")
        rows = [(size, values[column]) for size, *values in points if values[column] is not None]
        if not rows:
            continue
        data = os.path.join(directory, f"{column}-{index}.dat")
        with open(data, "w", encoding="utf-8") as handle:
            handle.writelines(f"{size} {value}\n" for size, value in rows)
        plots.append(f'"{data}" using 1:2 with linespoints title "{name}"')
    return plots


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
    if shutil.which("gnuplot") is None:
        fail("gnuplot is not installed (Debian package gnuplot-nox; scripts/install-deps.sh installs it)")
    subjects = read_subjects(args.json)
    title = args.title.replace('"', "'")
    with tempfile.TemporaryDirectory() as directory:
        bandwidth = data_files(directory, subjects, 0, labels)
        latency = data_files(directory, subjects, 1, labels)
        script = [
            "set terminal pngcairo size 1200,500",
            f'set output "{args.output}"',
            f'set multiplot layout 1,2 title "{title}"',
            "set logscale x 2",
            "set format x '%.0b%B'",
            'set xlabel "size (bytes)"',
            "set grid",
            "set key left top",
        ]
        if bandwidth:
            script += ['set title "bandwidth (window of 64)"', 'set ylabel "MB/s"',
                       "set yrange [0:*]", "plot " + ", ".join(bandwidth)]
        if latency:
            script += ['set title "latency"', 'set ylabel "us, half round trip"',
                       "set logscale y 2", "set yrange [*:*]", "plot " + ", ".join(latency)]
        script.append("unset multiplot")
        result = subprocess.run(["gnuplot"], input="\n".join(script), text=True,
                                capture_output=True, check=False)
        if result.returncode != 0:
            fail(f"gnuplot failed: {result.stderr.strip()}")
    print(f"plot-mrail.py: wrote {args.output} ({len(subjects)} subjects)")


if __name__ == "__main__":
    main()
