#!/usr/bin/env python3
"""Fits the collectives' cost model to measured runs and checks it on others.

    fit-cost-model.py --fit DIR... [--check DIR...] [-o MODEL.json]
        [--info build/release/bin/railyard-info]
    fit-cost-model.py --figures builtin|MODEL.json --check DIR...

Each DIR is the --out of a scripts/collectives-vs-openmpi.sh run: its
combined CSV gives railyard's slowest-rank time per size (the median of
the rounds), its reference.json the rails' measured parallel-TCP rate (a
run on one host needs none: it prices the host's copies and reductions),
and its CSV's hosts and ranks the layout. A rail's rate is that measured rate
over the rails; the model's other figures (the latency between hosts,
the gap between the messages a host sends at once, the latency within a
host, the copy and reduction rates) are fitted to the --fit runs by
least squares on the logarithm of the times (Nelder-Mead), pricing each
size with `railyard-info --algorithms --hosts H --ranks-per-host R --json`
(the algorithm the table chooses). The --check runs are then predicted
with the fitted figures and the rail rate measured beside them, and each size's error
printed; the summary says how many sizes are within 20 %. Writes the
fitted figures as JSON (railyard-info --model reads it) to -o. With
--figures instead of --fit, the --check runs are predicted with given
figures: railyard-info's built-in ones (`builtin`) or a JSON -o wrote.
"""
import argparse
import csv
import glob
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_table", os.path.join(HERE, "bench-table.py"))
bench_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_table)

FITTED = ["latency_us", "message_gap_us", "host_latency_us", "copy_MBps", "host_copy_MBps",
          "reduce_MBps"]
START = {"latency_us": 12.0, "message_gap_us": 1.0, "host_latency_us": 2.0, "copy_MBps": 2500.0,
         "host_copy_MBps": 5000.0, "reduce_MBps": 2000.0}
# Where each figure may go: a machine's, not the fit's way out of a term
# no run constrains.
BOUNDS = {"latency_us": (0.5, 1000.0), "message_gap_us": (0.01, 100.0),
          "host_latency_us": (0.1, 100.0),
          "copy_MBps": (100.0, 100000.0), "host_copy_MBps": (100.0, 400000.0),
          "reduce_MBps": (100.0, 100000.0)}


def figures_of(point):
    """The figures at a point of the search (their logarithms), held within
    BOUNDS."""
    figures = {}
    for name, value in zip(FITTED, point):
        low, high = BOUNDS[name]
        figures[name] = float(f"{min(max(math.exp(value), low), high):.4g}")
    return figures


class Run:
    """One comparison run: railyard's times by operation and size."""

    def __init__(self, directory):
        self.directory = directory
        csvs = [path for path in glob.glob(os.path.join(directory, "*.csv"))]
        if len(csvs) != 1:
            sys.exit(f"fit-cost-model.py: {directory}: expected one combined CSV, found {len(csvs)}")
        self.times = {}
        self.hosts = self.ranks = None
        with open(csvs[0], newline="") as handle:
            for row in csv.DictReader(handle):
                if row["subject"] != "railyard" or row["placement"] != "out-of-place":
                    continue
                self.hosts, self.ranks = int(row["hosts"]), int(row["ranks"])
                time = float(row.get("max_time_us") or row["time_us"])
                self.times[(row["operation"], int(row["size"]))] = time
        if not self.times:
            sys.exit(f"fit-cost-model.py: {directory}: no out-of-place railyard rows")
        if self.ranks % self.hosts:
            sys.exit(f"fit-cost-model.py: {directory}: {self.ranks} ranks on {self.hosts} hosts")
        self.per_host = self.ranks // self.hosts
        self.line_MBps = bench_table.line_rate_of(directory)
        if self.line_MBps is None and self.hosts > 1:
            sys.exit(f"fit-cost-model.py: {directory}: no rails' reference rate (reference.json)")
        if self.line_MBps is None:
            self.line_MBps = 1000.0  # one host: no rail is used
        with open(os.path.join(directory, "launches.txt")) as handle:
            match = re.search(r"\((\d+) rails at ", handle.read())
        self.rails = int(match.group(1)) if match else 4

    @property
    def layout(self):
        return f"{self.hosts}x{self.per_host}"


class Layout:
    """The runs of one layout, priced together: one railyard-info call
    prices every collective and size they hold, at their mean rail rate."""

    def __init__(self, runs):
        self.runs = runs
        first = runs[0]
        self.hosts, self.per_host, self.rails = first.hosts, first.per_host, first.rails
        self.line_MBps = sum(run.line_MBps for run in runs) / len(runs)
        self.sizes = sorted({size for run in runs for (_, size) in run.times})
        self.model_path = os.path.join(first.directory, "cost-model.json")

    def predict(self, info, figures):
        """The model's (time, algorithm) per (operation, size)."""
        model = dict(figures, rails=self.rails, rail_MBps=self.line_MBps / self.rails)
        with open(self.model_path, "w") as handle:
            json.dump(model, handle)
        out = subprocess.run(
            [info, "--algorithms", "--hosts", str(self.hosts), "--ranks-per-host",
             str(self.per_host), "--model", self.model_path,
             "--sizes", ",".join(map(str, self.sizes)), "--json"],
            check=True, capture_output=True, text=True).stdout
        predicted = {}
        for entry in json.loads(out)["collectives"]:
            for row in entry["sizes"]:
                predicted[(entry["collective"], row["bytes"])] = (row["predicted_us"],
                                                                  row["chosen"])
        return predicted


def layouts_of(runs):
    grouped = {}
    for run in runs:
        grouped.setdefault((run.hosts, run.per_host, run.rails), []).append(run)
    return [Layout(group) for _, group in sorted(grouped.items())]


def squared_log_error(info, layouts, figures):
    total, count = 0.0, 0
    for layout in layouts:
        predicted = layout.predict(info, figures)
        for run in layout.runs:
            for key, measured in run.times.items():
                if key in predicted:
                    total += (math.log(predicted[key][0]) - math.log(measured)) ** 2
                    count += 1
    return total / max(count, 1)


def nelder_mead(function, start, steps=250):
    """Minimises `function` over vectors from `start` (a simplex method)."""
    dimension = len(start)
    simplex = [list(start)]
    for i in range(dimension):
        point = list(start)
        point[i] += 0.5
        simplex.append(point)
    values = [function(point) for point in simplex]
    for _ in range(steps):
        order = sorted(range(dimension + 1), key=lambda i: values[i])
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        centroid = [sum(point[i] for point in simplex[:-1]) / dimension for i in range(dimension)]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centroid, worst)]
        value = function(reflected)
        if value < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centroid, worst)]
            expanded_value = function(expanded)
            simplex[-1], values[-1] = (expanded, expanded_value) if expanded_value < value else (reflected, value)
        elif value < values[-2]:
            simplex[-1], values[-1] = reflected, value
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centroid, worst)]
            contracted_value = function(contracted)
            if contracted_value < values[-1]:
                simplex[-1], values[-1] = contracted, contracted_value
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (p - b) for b, p in zip(best, point)]
                                    for point in simplex[1:]]
                values = [values[0]] + [function(point) for point in simplex[1:]]
        if max(values) - min(values) < 1e-7:
            break
    best = min(range(dimension + 1), key=lambda i: values[i])
    return simplex[best], values[best]


def report(info, layouts, figures, title):
    print(f"# {title}: railyard's slowest-rank time, measured and predicted")
    print(f"# {'layout':<7} {'operation':<15} {'size (B)':>10} {'algorithm':<19} "
          f"{'measured (us)':>14} {'predicted (us)':>15} {'error':>8}")
    errors = []
    for layout in layouts:
        predicted = layout.predict(info, figures)
        for run in layout.runs:
            for (operation, size), measured in sorted(run.times.items()):
                if (operation, size) not in predicted:
                    continue
                time, chosen = predicted[(operation, size)]
                error = time / measured - 1
                errors.append(abs(error))
                print(f"  {run.layout:<7} {operation:<15} {size:>10} {chosen:<19} "
                      f"{measured:>14.1f} {time:>15.1f} {error:>+7.0%}")
    errors.sort()
    within = sum(1 for error in errors if error <= 0.20)
    median = errors[len(errors) // 2] if errors else float("nan")
    print(f"# {title}: {within} of {len(errors)} sizes within 20 %; median error {median:.0%}")
    return within, len(errors)


def given_figures(info, source):
    """The figures --figures names: railyard-info's built-in ones, or a
    JSON file as -o writes."""
    if source == "builtin":
        out = subprocess.run([info, "--algorithms", "--hosts", "2", "--ranks-per-host", "1",
                              "--sizes", "8", "--json"],
                             check=True, capture_output=True, text=True).stdout
        figures = json.loads(out)["fabric"]
    else:
        try:
            with open(source) as handle:
                figures = json.load(handle)
        except (OSError, ValueError) as error:
            sys.exit(f"fit-cost-model.py: --figures {source}: {error}: expected 'builtin' or "
                     "a JSON file of the figures as -o writes")
    missing = [name for name in FITTED if not isinstance(figures.get(name), (int, float))]
    if missing:
        sys.exit(f"fit-cost-model.py: --figures {source}: no {', '.join(missing)}: expected "
                 f"a number for each of {', '.join(FITTED)}")
    return {name: float(figures[name]) for name in FITTED}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", nargs="+", default=[], help="runs to fit the figures to")
    parser.add_argument("--figures", help="check with these figures instead of fitting: "
                        "'builtin' (railyard-info's) or a JSON file as -o writes")
    parser.add_argument("--check", nargs="*", default=[], help="runs to check the fit on")
    parser.add_argument("--info", default=os.path.join(HERE, "..", "build", "release", "bin",
                                                       "railyard-info"))
    parser.add_argument("-o", "--output", help="where to write the fitted figures (JSON)")
    args = parser.parse_args()
    if not os.access(args.info, os.X_OK):
        sys.exit(f"fit-cost-model.py: --info {args.info} is not a program: build railyard-info")
    if bool(args.fit) == bool(args.figures):
        sys.exit("fit-cost-model.py: give either --fit DIR... or --figures (see --help)")
    check_layouts = layouts_of([Run(directory) for directory in args.check])
    if args.figures:
        if not check_layouts:
            sys.exit("fit-cost-model.py: --figures needs --check DIR...")
        figures = given_figures(args.info, args.figures)
        print(f"# figures ({args.figures}): {json.dumps(figures)}")
    else:
        fit_runs = [Run(directory) for directory in args.fit]
        fit_layouts = layouts_of(fit_runs)

        def objective(point):
            return squared_log_error(args.info, fit_layouts, figures_of(point))

        start = [math.log(START[name]) for name in FITTED]
        best, value = nelder_mead(objective, start)
        figures = figures_of(best)
        print(f"# fitted on {', '.join(run.directory for run in fit_runs)}: "
              f"{json.dumps(figures)} (mean squared log error {value:.4f})")
        report(args.info, fit_layouts, figures, "fit")
    if check_layouts:
        report(args.info, check_layouts, figures, "check")
    if args.output:
        with open(args.output, "w") as handle:
            json.dump(figures, handle, indent=2)
            handle.write("\n")


if __name__ == "__main__":
    main()
