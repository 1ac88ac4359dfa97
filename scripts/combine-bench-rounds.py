#!/usr/bin/env python3
"""Combines railyard-bench CSV files of several rounds into one: per subject,
size and placement, the round with the median time (the upper one of an
even count). scripts/bench-table.py prints the rounds' ratios.

  scripts/combine-bench-rounds.py -o combined.csv rounds/*.csv
"""
import argparse
import csv
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("-o", "--output", required=True)
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
    rounds = {}
    for (subject, _, _), rows in groups.items():
        rounds[subject] = max(rounds.get(subject, 0), len(rows))
    print(f"# {args.output}: median of "
          f"{', '.join(f'{s} {n} round(s)' for s, n in sorted(rounds.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
