#!/usr/bin/env python3
"""Combines railyard-bench CSV files of several rounds into one: per subject,
size and placement, the round with the median time (the upper one of an
even count), and prints the ratios of railyard's busbw to every other
subject's, and each subject's algbw as a fraction of a reference bandwidth.

  scripts/combine-bench-rounds.py -o combined.csv [--reference-mbps 479] rounds/*.csv
"""
import argparse
import csv
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--reference-mbps", type=float, default=0.0,
                        help="the rails' parallel reference in MB/s (0: none)")
    parser.add_argument("--subject", default="railyard", help="the subject the ratios are of")
    args = parser.parse_args()
    groups = {}
    fields = None
    for path in args.csv:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            fields = fields or reader.fieldnames
            for row in reader:
                key = (row["subject"], int(row["size"]), row["placement"])
                groups.setdefault(key, []).append(row)
    if not groups:
        sys.exit("combine-bench-rounds.py: no rows in " + ", ".join(args.csv))
    combined = {}
    for key, rows in groups.items():
        rows.sort(key=lambda r: float(r["time_us"]))
        combined[key] = rows[len(rows) // 2]
    with open(args.output, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for key in sorted(combined):
            writer.writerow(combined[key])
    subjects = sorted({k[0] for k in combined})
    others = [s for s in subjects if s != args.subject]
    rounds = {s: max(len(v) for k, v in groups.items() if k[0] == s) for s in subjects}
    print(f"# {args.output}: median of {', '.join(f'{s} {n} round(s)' for s, n in rounds.items())}")
    header = f"{'size':>10} {'placement':>12}"
    for subject in subjects:
        header += f" {subject[:16] + ' us':>19} {'busbw':>7}"
    for other in others:
        header += f" {(args.subject + '/' + other)[:24]:>25}"
    if args.reference_mbps > 0:
        header += "".join(f" {(s + ' algbw/ref')[:24]:>25}" for s in subjects)
    print(header)
    wrong = 0
    for size in sorted({k[1] for k in combined}):
        for placement in ("out-of-place", "in-place"):
            rows = {s: combined.get((s, size, placement)) for s in subjects}
            if not any(rows.values()):
                continue
            line = f"{size:>10} {placement:>12}"
            for subject in subjects:
                row = rows[subject]
                if row:
                    wrong += int(row["wrong"] or 0)
                    line += f" {float(row['time_us']):>19.1f} {float(row['busbw_gbps']):>7.3f}"
                else:
                    line += f" {'-':>19} {'-':>7}"
            mine = rows.get(args.subject)
            for other in others:
                theirs = rows[other]
                if mine and theirs and float(theirs["busbw_gbps"]) > 0:
                    line += f" {float(mine['busbw_gbps']) / float(theirs['busbw_gbps']):>25.3f}"
                else:
                    line += f" {'-':>25}"
            if args.reference_mbps > 0:
                for subject in subjects:
                    row = rows[subject]
                    value = float(row["algbw_gbps"]) * 1000 / args.reference_mbps if row else None
                    line += f" {value:>25.3f}" if value is not None else f" {'-':>25}"
            print(line)
    if args.reference_mbps > 0:
        print(f"# reference: the rails' parallel TCP, {args.reference_mbps:.1f} MB/s")
    print(f"# wrong elements in the checks: {wrong}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
