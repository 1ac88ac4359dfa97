#!/usr/bin/env python3
"""Pools the latency rounds of several railyard-mrail-bench --json runs and
prints, per subject and size, its ratios to a baseline subject: of the
lowest latencies, of the medians, and the median of each round's own ratio
(the two subjects measured seconds apart in one round).

  scripts/pool-mrail-latency.py [--baseline openmpi] [--pair comm-default/default] run*.json

One run's figures can be moved as a whole by the machine's other load; the
pooled statistics say how many rounds they rest on. A round a subject
failed (an empty list in the JSON) is left out of its figures and of every
pairing it is part of.
"""
import argparse
import json
import sys


def load_rounds(paths):
    """{subject: {size: {(run, round): latency_us}}} over every file."""
    rounds = {}
    for run, path in enumerate(paths):
        try:
            with open(path) as handle:
                data = json.load(handle)
        except (OSError, ValueError) as error:
            sys.exit(f"pool-mrail-latency.py: cannot read {path}: {error}")
        if data.get("tool") != "railyard-mrail-bench" or "subjects" not in data:
            sys.exit(f"pool-mrail-latency.py: {path} is not a railyard-mrail-bench --json file")
        for subject in data["subjects"]:
            by_size = rounds.setdefault(subject["name"], {})
            for index, rows in enumerate(subject.get("rounds", [])):
                for size, latency_us, _bandwidth in rows:
                    by_size.setdefault(size, {})[(run, index)] = latency_us
    return rounds


def median(values):
    """The median as railyard-mrail-bench takes it (tools::median): the
    upper one of an even count, so that the figures here are the bench's."""
    values = sorted(values)
    return values[len(values) // 2]


def paired(numerator, denominator):
    """Median of each round's own ratio, over the rounds both measured."""
    ratios = [numerator[key] / denominator[key] for key in numerator if key in denominator]
    return median(ratios) if ratios else None


def text(values):
    return " ".join("-" if value is None else f"{value:.3f}" for value in values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", nargs="+", help="railyard-mrail-bench --json files")
    parser.add_argument("--baseline", default="openmpi", help="the subject the ratios are to")
    parser.add_argument("--pair", action="append", default=[],
                        help="NUMERATOR/DENOMINATOR: also each round's own ratio of two subjects")
    args = parser.parse_args()
    rounds = load_rounds(args.json)
    if args.baseline not in rounds:
        sys.exit(f"pool-mrail-latency.py: no subject '{args.baseline}' in {', '.join(args.json)}; "
                 f"the subjects are {', '.join(sorted(rounds))}")
    pairs = []
    for pair in args.pair:
        numerator, _, denominator = pair.partition("/")
        if numerator not in rounds or denominator not in rounds:
            sys.exit(f"pool-mrail-latency.py: --pair {pair}: expected NUMERATOR/DENOMINATOR, two "
                     f"subjects of the runs ({', '.join(sorted(rounds))})")
        pairs.append((pair, rounds[numerator], rounds[denominator]))
    base = rounds[args.baseline]
    sizes = sorted(base)
    print(f"# {len(args.json)} run(s); sizes {' '.join(str(size) for size in sizes)}")
    print(f"# {args.baseline}: lowest {text(min(base[s].values()) for s in sizes)} us, "
          f"median {text(median(base[s].values()) for s in sizes)} us, "
          f"{len(base[sizes[0]])} rounds")
    print(f"# ratio to {args.baseline}: lowest | medians | median of each round's own")
    for name, by_size in rounds.items():
        if name == args.baseline:
            continue
        if not all(by_size.get(size) for size in sizes):
            print(f"{name:<24} not measured at every size of {args.baseline}'s")
            continue
        lowest = [min(by_size[s].values()) / min(base[s].values()) for s in sizes]
        medians = [median(by_size[s].values()) / median(base[s].values())
                   for s in sizes]
        own = [paired(by_size[s], base[s]) for s in sizes]
        print(f"{name:<24} {text(lowest)} | {text(medians)} | {text(own)}"
              f"   ({len(by_size[sizes[0]])} rounds)")
    for pair, numerator, denominator in pairs:
        own = [paired(numerator.get(s, {}), denominator.get(s, {})) for s in sizes]
        print(f"{pair}, median of each round's own: {text(own)}")


if __name__ == "__main__":
    main()
