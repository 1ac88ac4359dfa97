#!/usr/bin/env python3
"""Where the MPI shim should carry each collective, from comparison runs:
for each layout, railyard's speed against a baseline per collective and
size (the median over the rounds of each round's own ratio, on the slowest
rank's time and on the ranks' average), and the sizes that meet the rule.

  scripts/carry-table.py [--baseline "Open MPI tuned"] [--subject railyard] DIR...

Each DIR is the --out of one scripts/collectives-vs-openmpi.sh run (one
collective on one layout). A size is met when it meets the rule on the
slowest rank's time and on the average, each on its own: railyard at least
as fast as the baseline (ratio >= 1.00), or both carrying the rails' line
rate (each >= 0.97 of it, bench-table.py's "of line") and neither more
than 3 % ahead (a tie; `tc`'s token bucket lets short bursts through above
the line rate, where the figures part).
The shim carries a collective over each run of two or more met sizes in a
row, from its first size up to the next size not met, and over a last run
of any length from its first size up; smaller sizes than the first
measured go to MPI. Sizes are the whole vector, as railyard-bench counts
them; the shim's size is a rank's block for allgather, alltoall,
reduce_scatter, gather and scatter, and the mean block for their v-forms
(the whole over the ranks), and the vector for the others, as the last
column says. --subject compares another
subject of the runs instead of railyard (`--subject "Open MPI + railyard
shim"` for runs with --shim: where the shim is ahead of MPI alone).
"""
import argparse
import glob
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_table", os.path.join(HERE, "bench-table.py"))
bench_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_table)

BLOCK_COLLECTIVES = {"allgather", "alltoall", "reduce_scatter", "gather", "scatter",
                     "allgatherv", "alltoallv", "reduce_scatterv", "gatherv", "scatterv"}
LINE_SHARE = 0.97


def fail(message):
    print(f"carry-table.py: {message}", file=sys.stderr)
    sys.exit(2)


def line_share(row, line_MBps):
    carried = bench_table.link_bytes(row)
    time = bench_table.time_of(row)
    if carried is None or not line_MBps or time <= 0:
        return None
    return carried / time / line_MBps


def measure(directory, subject, baseline):
    """(operation, hosts, ranks, {size: (slowest ratio, average ratio, met)})."""
    paths = glob.glob(os.path.join(directory, "rounds", "*.csv"))
    if not paths:
        fail(f"{directory}: no rounds/*.csv (expected a collectives-vs-openmpi.sh --out)")
    line = bench_table.line_rate_of(directory)
    ratios = {}
    first = None
    for time in ("slowest", "average"):
        bench_table.time_column = bench_table.TIME_COLUMNS[time]
        table, first = bench_table.read_rounds(paths, "out-of-place")
        if subject not in table or baseline not in table:
            fail(f"{directory}: no '{baseline}' beside '{subject}' "
                 f"(subjects: {', '.join(sorted(table))})")
        for size, mine in table[subject].items():
            theirs = table[baseline].get(size, {})
            ratio = bench_table.round_ratio(mine, theirs)
            shares = [line_share(bench_table.median_row(rounds), line)
                      for rounds in (mine, theirs) if rounds]
            tie = len(shares) == 2 and all(s is not None and s >= LINE_SHARE for s in shares)
            ratios.setdefault(size, {})[time] = (ratio, tie)
    out = {}
    for size, by_time in sorted(ratios.items()):
        slowest, average = by_time["slowest"][0], by_time["average"][0]
        known = slowest is not None and average is not None
        # Each time meets the rule on its own: ahead, or a tie at line rate.
        met = known and all(ratio >= 1.0 or (tie and ratio >= LINE_SHARE)
                            for ratio, tie in by_time.values())
        out[size] = (slowest, average, met)
    return first["operation"], int(first.get("hosts") or 1), int(first["ranks"]), out


def carried_ranges(sizes):
    """[(from, to or None)] of whole sizes by the rule above."""
    ordered = sorted(sizes.items())
    ranges, run = [], []
    for index, (size, (_, _, met)) in enumerate(ordered):
        if met:
            run.append(size)
        if run and (not met or index == len(ordered) - 1):
            last = index == len(ordered) - 1 and met
            if last:
                ranges.append((run[0], None))
            elif len(run) >= 2:
                ranges.append((run[0], size))
            run = []
    return ranges


def describe(ranges, divisor):
    if not ranges:
        return "at no size"
    parts = []
    for start, end in ranges:
        text = f"from {bench_table.human(start // divisor)}"
        if end is not None:
            text += f" below {bench_table.human(end // divisor)}"
        parts.append(text)
    return " and ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="collectives-vs-openmpi.sh --out folders")
    parser.add_argument("--baseline", default="Open MPI tuned",
                        help="the subject railyard is compared with (on one host: Open MPI vader)")
    parser.add_argument("--subject", default="railyard",
                        help="the subject compared with the baseline")
    args = parser.parse_args()
    layouts = {}
    for directory in args.runs:
        baseline = args.baseline
        if not os.path.isdir(directory):
            fail(f"{directory} is not a folder")
        subjects = {os.path.basename(p).rsplit("-", 1)[0]
                    for p in glob.glob(os.path.join(directory, "rounds", "*.csv"))}
        if baseline.replace(" ", "_") not in subjects and "Open_MPI_vader" in subjects:
            baseline = "Open MPI vader"  # one host: Open MPI's shared memory
        operation, hosts, ranks, sizes = measure(directory, args.subject, baseline)
        layouts.setdefault((hosts, ranks), {})[operation] = (sizes, baseline)
    for (hosts, ranks), operations in sorted(layouts.items()):
        names = sorted(operations)
        baselines = sorted({b for _, b in operations.values()})
        print(f"### {hosts} host(s) x {ranks // hosts} rank(s): {args.subject} against "
              f"{', '.join(baselines)}, slowest rank / average\n")
        all_sizes = sorted({s for sizes, _ in operations.values() for s in sizes})
        print("| size | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for size in all_sizes:
            cells = []
            for name in names:
                entry = operations[name][0].get(size)
                if entry is None or entry[0] is None:
                    cells.append("-")
                    continue
                slowest, average, met = entry
                text = f"{slowest:.2f} / {average:.2f}"
                cells.append(f"**{text}**" if met else text)
            print(f"| {bench_table.human(size)} | " + " | ".join(cells) + " |")
        print()
        print("| collective | carried (whole vector) | the shim's size |")
        print("|---|---|---|")
        for name in names:
            ranges = carried_ranges(operations[name][0])
            divisor = ranks if name in BLOCK_COLLECTIVES else 1
            print(f"| {name} | {describe(ranges, 1)} | {describe(ranges, divisor)} |")
        print()


if __name__ == "__main__":
    main()
