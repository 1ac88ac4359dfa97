#!/usr/bin/env python3
"""Prints the rounds of railyard-bench runs side by side as one table in
nccl-tests' columns: per size, each subject's median time and busbw over the
rounds, and the subject's speed against every other subject as the median
over the rounds of each round's own ratio (the two measured minutes apart at
most, in the same round, so a slow stretch of the machine that falls on both
leaves the ratio alone).

  scripts/bench-table.py [--subject railyard] [--placement out-of-place]
      [--line-rate-mbps 478] [--markdown [--compact]] [--exclude NAME]...
      [--sizes 8,64k,1m] [--time average|slowest] rounds/*.csv

A round's files are named NAME-ROUND.csv (scripts/collectives-vs-openmpi.sh
writes them so). A ratio above 1 means the subject is faster. With
--line-rate-mbps, a column gives how full each subject kept the rails: the
bytes each host's link must carry at the least for the collective (n the
size, H the hosts, L the ranks a host: allreduce 2n(H-1)/H; bcast and
reduce n; allgather, reduce_scatter, gather and scatter n(H-1)/H;
alltoall Ln(H-1)/H) over the time, as a fraction of the rails' line rate
(1.0: full). --compact keeps each
subject's time, the ratios, and the subject's busbw and fraction of the
line rate; --exclude leaves a subject out; --sizes keeps those rows only.
--time chooses the time compared: each rank's mean per call averaged over
the ranks (average, nccl-tests' figure) or the slowest rank's (slowest);
bandwidths follow the time chosen.
"""
import argparse
import csv
import json
import os
import re
import statistics
import sys

# The CSV column of the time compared (--time).
TIME_COLUMNS = {"average": "time_us", "slowest": "max_time_us"}
TIME_WHAT = {"average": "the ranks' average time", "slowest": "the slowest rank's time"}
time_column = TIME_COLUMNS["average"]


def line_rate_of(directory):
    """The rails' parallel-TCP rate (MB/s) that scripts/collectives-vs-openmpi.sh
    measured beside a run (DIR/reference.json), or None."""
    try:
        with open(os.path.join(directory, "reference.json")) as handle:
            for subject in json.load(handle)["subjects"]:
                if subject["name"] == "parallel" and subject["results"]:
                    return subject["results"][-1]["bandwidth_MBps"]
    except (OSError, ValueError, KeyError):
        pass
    return None


def link_bytes(row):
    """The bytes each host's link must carry at the least (see above), or
    None on one host."""
    size, ranks, hosts = int(row["size"]), int(row["ranks"]), int(row.get("hosts") or 1)
    if hosts < 2:
        return None
    per_host = -(-ranks // hosts)
    across = size * (hosts - 1) / hosts
    operation = row["operation"]
    if operation == "allreduce":
        return 2 * across
    if operation in ("bcast", "reduce"):
        return float(size)
    if operation in ("alltoall", "alltoallv"):
        return per_host * across
    if operation == "barrier":
        return None
    return across


def fail(message):
    print(f"bench-table.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_rounds(paths, placement):
    """{subject: {size: {round: row}}} and the first row seen (for the header)."""
    table = {}
    first = None
    for path in paths:
        match = re.search(r"-(\d+)\.csv$", os.path.basename(path))
        if not match:
            fail(f"{path}: expected a file named NAME-ROUND.csv")
        round_number = int(match.group(1))
        try:
            with open(path, newline="") as handle:
                for row in csv.DictReader(handle):
                    if row.get("placement") != placement:
                        continue
                    first = first or row
                    sizes = table.setdefault(row["subject"], {})
                    sizes.setdefault(int(row["size"]), {})[round_number] = row
        except (OSError, KeyError, ValueError) as error:
            fail(f"{path}: {error}: expected railyard-bench --csv output")
    if not table:
        fail(f"no {placement} rows in {', '.join(paths)}")
    return table, first


def human(size):
    """8 B, 64 KiB, 16 MiB."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


def time_of(row):
    """The row's time in the column --time chose."""
    return float(row[time_column])


def bandwidth_of(row, column):
    """The row's algbw or busbw for the time --time chose (the CSV's are the average's)."""
    return float(row[column]) * float(row["time_us"]) / time_of(row) if time_of(row) > 0 else 0.0


def median_row(rounds):
    """The row of the round with the median time (the upper one of an even count)."""
    rows = sorted(rounds.values(), key=time_of)
    return rows[len(rows) // 2]


def round_ratio(mine, theirs):
    """Median over the rounds both finished of their time over mine."""
    ratios = [time_of(theirs[r]) / time_of(mine[r])
              for r in mine.keys() & theirs.keys() if time_of(mine[r]) > 0]
    return statistics.median_high(ratios) if ratios else None


def size_of(text):
    """A byte count with an optional k, m or g (binary multiples)."""
    factors = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower()
    try:
        if text and text[-1] in factors:
            return int(text[:-1]) * factors[text[-1]]
        return int(text)
    except ValueError:
        fail(f"--sizes: '{text}' is not a byte count (digits with an optional k, m or g)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+", help="railyard-bench --csv files, NAME-ROUND.csv")
    parser.add_argument("--subject", default="railyard", help="the subject the ratios are of")
    parser.add_argument("--placement", default="out-of-place", choices=("out-of-place", "in-place"))
    parser.add_argument("--line-rate-mbps", type=float, default=0.0,
                        help="the rails' line rate in MB/s, for a fraction-of-line-rate column")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table instead of text")
    parser.add_argument("--compact", action="store_true",
                        help="with --markdown: times, ratios and the subject's busbw only")
    parser.add_argument("--exclude", action="append", default=[], help="a subject to leave out")
    parser.add_argument("--sizes", default="", help="comma list of the sizes to keep")
    parser.add_argument("--time", default="average", choices=sorted(TIME_COLUMNS),
                        help="the ranks' average time, or the slowest rank's")
    args = parser.parse_args()
    global time_column
    time_column = TIME_COLUMNS[args.time]
    table, first = read_rounds(args.csv, args.placement)
    if time_column not in first:
        fail(f"--time {args.time}: the files have no {time_column} column "
             "(written by a railyard-bench older than the slowest rank's time)")
    for name in args.exclude:
        table.pop(name, None)
    if args.subject not in table:
        fail(f"--subject '{args.subject}' is not in the files: expected one of {', '.join(sorted(table))}")
    others = sorted(s for s in table if s != args.subject)
    subjects = [args.subject] + others
    rounds = max(len(r) for sizes in table.values() for r in sizes.values())
    sizes = sorted({size for s in table.values() for size in s})
    if args.sizes:
        wanted = {size_of(text) for text in args.sizes.split(",")}
        sizes = [size for size in sizes if size in wanted]

    per_subject = ["time (us)", "busbw (GB/s)"] + (["of line"] if args.line_rate_mbps > 0 else [])
    lines = []
    wrong = 0
    for size in sizes:
        cells = [str(size), "-"]
        for s in subjects:
            rounds_of = table[s].get(size)
            if not rounds_of:
                cells += ["-"] * len(per_subject)
                continue
            row = median_row(rounds_of)
            wrong += sum(int(r["wrong"] or 0) for r in rounds_of.values())
            cells[1] = row["count"]
            cells += [f"{time_of(row):.1f}", f"{bandwidth_of(row, 'busbw_gbps'):.3f}"]
            if args.line_rate_mbps > 0:
                carried = link_bytes(row)
                cells.append("-" if carried is None or time_of(row) <= 0
                             else f"{carried / time_of(row) / args.line_rate_mbps:.2f}")
        mine = table[args.subject].get(size, {})
        for o in others:
            ratio = round_ratio(mine, table[o].get(size, {}))
            cells.append(f"{ratio:.2f}x" if ratio is not None else "-")
        lines.append(cells)

    what = (f"{first['operation']}, {first['type']} {first['redop']}, {first['ranks']} ranks, "
            f"{args.placement}, {TIME_WHAT[args.time]}, median of {rounds} round(s)")
    ratio_note = (f"{args.subject} / X: median over the rounds of each round's X time over "
                  f"{args.subject}'s (above 1: {args.subject} is faster)")
    if args.markdown and args.compact:
        # size, each subject's time, the ratios, the subject's busbw and share
        # of the line rate.
        width = len(per_subject)
        header = ["size"] + [f"{s} (us)" for s in subjects]
        header += [f"{args.subject} / {o}" for o in others]
        header.append(f"{args.subject} busbw (GB/s)")
        if args.line_rate_mbps > 0:
            header.append("of line rate")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for cells in lines:
            row = [human(int(cells[0]))]
            row += [cells[2 + i * width] for i in range(len(subjects))]
            row += cells[2 + width * len(subjects):]
            row.append(cells[3])
            if args.line_rate_mbps > 0:
                row.append(cells[4])
            print("| " + " | ".join(row) + " |")
    elif args.markdown:
        header = ["size (B)", "count"]
        header += [f"{s} {c}" for s in subjects for c in per_subject]
        header += [f"{args.subject} / {o}" for o in others]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
    else:
        # Two header rows: the subjects over their columns, then the columns.
        columns = ["size (B)", "count"] + per_subject * len(subjects) + [f"/ {o}" for o in others]
        widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(columns)]
        group_width = sum(widths[2:2 + len(per_subject)]) + 2 * (len(per_subject) - 1)
        groups = [" " * (widths[0] + 2 + widths[1])]
        for s in subjects:
            groups.append(s[:group_width].center(group_width, "-") if len(s) < group_width
                          else s[:group_width])
        groups.append(f"{args.subject}".ljust(sum(widths[-len(others):]) + 2 * (len(others) - 1))
                      if others else "")
        print(f"# {what}")
        print("# " + "  ".join(groups).rstrip())
        print("# " + "  ".join(h.rjust(w) for h, w in zip(columns, widths)))
        for cells in lines:
            print("  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths)))
        print(f"# {ratio_note}")
        if args.line_rate_mbps > 0:
            print(f"# of line: the bytes a host's link must carry over the time, against the "
                  f"rails' line rate (parallel TCP, {args.line_rate_mbps:.1f} MB/s)")
        print(f"# wrong elements in the checks: {wrong}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
