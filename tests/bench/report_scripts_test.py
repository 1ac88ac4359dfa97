#!/usr/bin/env python3
"""Runs scripts/bench-table.py, scripts/plot-mrail.py, scripts/plot-ratios.py,
scripts/plot-projection.py and scripts/plot-ddp.py (their paths are the
first five arguments) on files written here, and checks their figures,
their output and their errors."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BENCH_TABLE = sys.argv.pop(1)
PLOT_MRAIL = sys.argv.pop(1)
PLOT_RATIOS = sys.argv.pop(1)
PLOT_PROJECTION = sys.argv.pop(1)
PLOT_DDP = sys.argv.pop(1)

COLUMNS = ["subject", "operation", "ranks", "hosts", "type", "redop", "root", "size", "count",
           "placement", "time_us", "algbw_gbps", "busbw_gbps", "wrong", "max_time_us"]


class Files(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.directory.cleanup()

    def path(self, name):
        return os.path.join(self.directory.name, name)

    def run_script(self, script, *args):
        return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                              check=False, timeout=60)


class BenchTable(Files):
    def write_round(self, subject, round_number, times, wrong=0, slowest=None,
                    operation="allreduce", ranks=2, hosts=2):
        """One railyard-bench --csv file: `times` maps a size to its time in us,
        `slowest` to the slowest rank's (default: the same)."""
        path = self.path(f"{subject.replace(' ', '_')}-{round_number}.csv")
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for size, time in times.items():
                algbw = size / time / 1000
                writer.writerow([subject, operation, ranks, hosts, "float", "sum", -1, size, size // 4,
                                 "out-of-place", time, algbw, algbw, wrong,
                                 (slowest or times)[size]])
        return path

    def test_ratios_are_the_median_of_each_rounds_own(self):
        # Round 2 is slow for both subjects: its own ratio stays 2.
        files = [self.write_round("railyard", 1, {1024: 10.0, 1 << 20: 1000.0}),
                 self.write_round("railyard", 2, {1024: 40.0, 1 << 20: 4000.0}),
                 self.write_round("railyard", 3, {1024: 10.0, 1 << 20: 1000.0}),
                 self.write_round("baseline", 1, {1024: 20.0, 1 << 20: 1000.0}),
                 self.write_round("baseline", 2, {1024: 80.0, 1 << 20: 4000.0}),
                 self.write_round("baseline", 3, {1024: 20.0, 1 << 20: 1000.0})]
        result = self.run_script(BENCH_TABLE, "--markdown", "--compact", "--line-rate-mbps", "1000",
                                 *files)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "| size | railyard (us) | baseline (us) | railyard / baseline"
                                   " | railyard busbw (GB/s) | of line rate |")
        self.assertEqual(lines[2], "| 1 KiB | 10.0 | 20.0 | 2.00x | 0.102 | 0.10 |")
        self.assertEqual(lines[3], "| 1 MiB | 1000.0 | 1000.0 | 1.00x | 1.049 | 1.05 |")

    def test_the_line_rate_column_counts_what_a_hosts_link_must_carry(self):
        # 1 MiB in 1000 us at a line rate of 1000 MB/s: an alltoall of 2
        # hosts x 2 sends half of each rank's vector off its host (1 MiB a
        # host), a bcast all of it, an allgather over 4 hosts 3/4 of it; a
        # job on one host has no line rate.
        for operation, ranks, hosts, expected in (("alltoall", 4, 2, "1.05"),
                                                  ("bcast", 4, 2, "1.05"),
                                                  ("allgather", 4, 4, "0.79"),
                                                  ("allreduce", 4, 1, "-")):
            files = [self.write_round(name, 1, {1 << 20: 1000.0}, operation=operation,
                                      ranks=ranks, hosts=hosts)
                     for name in ("railyard", "baseline")]
            result = self.run_script(BENCH_TABLE, "--markdown", "--compact", "--line-rate-mbps",
                                     "1000", *files)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertTrue(result.stdout.splitlines()[2].endswith(f"| {expected} |"),
                            (operation, result.stdout))

    def test_the_slowest_ranks_time_is_compared_on_request(self):
        # On average the two tie; the baseline's slowest rank takes 4 times as long.
        files = [self.write_round("railyard", 1, {1 << 20: 1000.0}, slowest={1 << 20: 1000.0}),
                 self.write_round("baseline", 1, {1 << 20: 1000.0}, slowest={1 << 20: 4000.0})]
        average = self.run_script(BENCH_TABLE, "--markdown", "--compact", *files)
        self.assertEqual(average.returncode, 0, average.stderr)
        self.assertEqual(average.stdout.splitlines()[2], "| 1 MiB | 1000.0 | 1000.0 | 1.00x | 1.049 |")
        slowest = self.run_script(BENCH_TABLE, "--markdown", "--compact", "--time", "slowest",
                                  *files)
        self.assertEqual(slowest.returncode, 0, slowest.stderr)
        self.assertEqual(slowest.stdout.splitlines()[2], "| 1 MiB | 1000.0 | 4000.0 | 4.00x | 1.049 |")
        text = self.run_script(BENCH_TABLE, "--time", "slowest", *files)
        self.assertIn("the slowest rank's time", text.stdout)

    def test_sizes_and_exclude_choose_rows_and_subjects(self):
        files = [self.write_round(s, 1, {64: 5.0, 4096: 9.0, 65536: 50.0})
                 for s in ("railyard", "baseline", "other")]
        result = self.run_script(BENCH_TABLE, "--markdown", "--compact", "--exclude", "other",
                                 "--sizes", "4k", *files)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 3, result.stdout)
        self.assertNotIn("other", result.stdout)
        self.assertTrue(lines[2].startswith("| 4 KiB | 9.0 | 9.0 | 1.00x"), lines[2])

    def test_wrong_elements_fail_the_table(self):
        files = [self.write_round("railyard", 1, {64: 5.0}, wrong=3),
                 self.write_round("baseline", 1, {64: 5.0})]
        result = self.run_script(BENCH_TABLE, *files)
        self.assertEqual(result.returncode, 1)
        self.assertIn("# wrong elements in the checks: 3", result.stdout)

    def test_bad_input_is_named(self):
        misnamed = self.path("railyard.csv")
        with open(misnamed, "w") as handle:
            handle.write("x\n")
        result = self.run_script(BENCH_TABLE, misnamed)
        self.assertEqual(result.returncode, 2)
        self.assertIn("expected a file named NAME-ROUND.csv", result.stderr)
        files = [self.write_round("railyard", 1, {64: 5.0})]
        result = self.run_script(BENCH_TABLE, "--sizes", "4q", *files)
        self.assertEqual(result.returncode, 2)
        self.assertIn("'4q' is not a byte count", result.stderr)
        result = self.run_script(BENCH_TABLE, "--subject", "nobody", *files)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--subject 'nobody' is not in the files", result.stderr)


@unittest.skipIf(shutil.which("gnuplot") is None, "gnuplot is not installed")
class PlotMrail(Files):
    def write_run(self):
        def results(scale):
            return [{"size": size, "bandwidth_MBps": size / scale, "latency_us": 5.0 + size / 1e5}
                    for size in (1, 1024, 1 << 20)]
        document = {"tool": "railyard-mrail-bench", "command": "railyard-mrail-bench",
                    "subjects": [{"name": "raw", "error": "", "results": results(100)},
                                 {"name": "default", "error": "", "results": results(25)},
                                 {"name": "broken", "error": "misconfigured", "results": []}]}
        path = self.path("run.json")
        with open(path, "w") as handle:
            json.dump(document, handle)
        return path

    def test_writes_a_png_of_the_subjects_that_ran(self):
        output = self.path("p2p.png")
        result = self.run_script(PLOT_MRAIL, "-o", output, "--label", "raw=one rail",
                                 self.write_run())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(2 subjects)", result.stdout)
        with open(output, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")

    def test_bad_input_is_named(self):
        result = self.run_script(PLOT_MRAIL, "-o", self.path("x.png"), "--label", "raw",
                                 self.write_run())
        self.assertEqual(result.returncode, 1)
        self.assertIn("--label 'raw' is invalid: expected SUBJECT=NAME", result.stderr)
        not_json = self.path("not.json")
        with open(not_json, "w") as handle:
            handle.write("{")
        result = self.run_script(PLOT_MRAIL, "-o", self.path("x.png"), not_json)
        self.assertEqual(result.returncode, 1)
        self.assertIn("expected railyard-mrail-bench --json output", result.stderr)


class PlotRatios(Files):
    def write_combined(self, operation, railyard_us, openmpi_us):
        path = self.path(f"{operation}.csv")
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for subject, time in (("railyard", railyard_us), ("Open MPI tuned", openmpi_us)):
                writer.writerow([subject, operation, 2, 2, "float", "sum", -1, 1 << 20, 1 << 18,
                                 "out-of-place", time, 1.0, 1.0, 0, time])
        return path

    def test_writes_a_png_of_each_collectives_ratio(self):
        output = self.path("ratios.png")
        result = self.run_script(PLOT_RATIOS, "-o", output, "--title", "2 hosts x 1 rank",
                                 self.write_combined("bcast", 1000.0, 2000.0),
                                 self.write_combined("alltoall", 1000.0, 500.0))
        if "gnuplot is not installed" in result.stderr:
            self.skipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(2 collectives)", result.stdout)
        with open(output, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")

    def test_a_missing_baseline_is_named(self):
        result = self.run_script(PLOT_RATIOS, "-o", self.path("x.png"), "--baseline", "UCX",
                                 self.write_combined("bcast", 1000.0, 2000.0))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no size with both 'railyard' and 'UCX'", result.stderr)

    def test_another_subject_is_compared_on_request(self):
        result = self.run_script(PLOT_RATIOS, "-o", self.path("x.png"), "--subject", "UCX",
                                 self.write_combined("bcast", 1000.0, 2000.0))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no size with both 'UCX' and 'Open MPI tuned'", result.stderr)
        output = self.path("subject.png")
        result = self.run_script(PLOT_RATIOS, "-o", output, "--subject", "Open MPI tuned",
                                 "--baseline", "railyard",
                                 self.write_combined("bcast", 1000.0, 2000.0))
        if "gnuplot is not installed" in result.stderr:
            self.skipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(1 collectives)", result.stdout)


class PlotProjection(Files):
    def write_projection(self, hosts, per_host, rows):
        """A railyard-info --algorithms --hosts --json report: `rows` maps a
        collective to [(bytes, railyard us, Open MPI us)]."""
        path = self.path(f"{hosts}x{per_host}.json")
        report = {"hosts": hosts, "ranks_per_host": per_host, "fabric": {"rails": 4},
                  "collectives": [
                      {"collective": name,
                       "sizes": [{"bytes": size, "chosen": "ring", "predicted_us": ours,
                                  "fastest": "ring", "fastest_us": ours, "openmpi": "linear",
                                  "openmpi_us": theirs} for size, ours, theirs in sizes]}
                      for name, sizes in rows.items()]}
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(report, handle)
        return path

    def test_writes_a_png_with_a_panel_per_shape(self):
        output = self.path("projection.png")
        result = self.run_script(
            PLOT_PROJECTION, "-o", output,
            self.write_projection(2, 8, {"bcast": [(8, 10.0, 20.0), (1 << 20, 100.0, 90.0)],
                                         "barrier": [(0, 5.0, 5.0)]}),
            self.write_projection(512, 8, {"bcast": [(8, 40.0, 80.0)]}))
        if "gnuplot is not installed" in result.stderr:
            self.skipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(2 shapes)", result.stdout)
        with open(output, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")

    def test_a_file_of_another_kind_is_named(self):
        path = self.path("other.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"hosts": 2}, handle)
        result = self.run_script(PLOT_PROJECTION, "-o", self.path("x.png"), path)
        if "gnuplot is not installed" in result.stderr:
            self.skipTest(result.stderr.strip())
        self.assertNotEqual(result.returncode, 0)
        self.assertIn(f"{path}: ", result.stderr)
        self.assertIn("expected railyard-info --algorithms --hosts", result.stderr)


class PlotDdp(Files):
    write_round = BenchTable.write_round

    def ddp_rounds(self, hosts_and_ranks):
        files = []
        for hosts, ranks in hosts_and_ranks:
            for subject, step_us in (("railyard", 300000.0), ("gloo", 400000.0)):
                for round_number in (1, 2, 3):
                    path = self.write_round(f"{subject}-{hosts}x{ranks}", round_number,
                                            {100712448: step_us + round_number},
                                            operation="ddp_step", ranks=hosts * ranks,
                                            hosts=hosts)
                    files.append(path)
        return files

    def test_writes_a_png_with_a_line_per_subject_and_layout(self):
        output = self.path("ddp.png")
        result = self.run_script(PLOT_DDP, "-o", output, "--line-rate-mbps", "478",
                                 *self.ddp_rounds([(2, 1), (2, 2)]))
        if "gnuplot is not installed" in result.stderr:
            self.skipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(4 lines)", result.stdout)
        with open(output, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")

    def test_a_file_without_ddp_steps_is_named(self):
        other = self.write_round("railyard", 1, {1024: 10.0})
        result = self.run_script(PLOT_DDP, "-o", self.path("x.png"), other)
        if "gnuplot is not installed" in result.stderr:
            self.skipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"{other}: no ddp_step row", result.stderr)


if __name__ == "__main__":
    unittest.main()
