#!/usr/bin/env python3
"""Runs scripts/pool-mrail-latency.py (its path is the first argument) on
railyard-mrail-bench JSON files written here, and checks its figures and
its errors."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1)


def bench_json(subjects):
    """A railyard-mrail-bench --json document; `subjects` maps a name to its
    rounds, each a {size: latency_us} dict (empty: a failed round)."""
    return {
        "tool": "railyard-mrail-bench",
        "command": "railyard-mrail-bench --rounds 2",
        "subjects": [
            {"name": name, "error": "", "failed_rounds": [], "launch": "",
             "rounds": [[[size, latency, 100.0] for size, latency in sorted(r.items())]
                        for r in rounds]}
            for name, rounds in subjects.items()
        ],
    }


class PoolMrailLatency(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.directory.cleanup()

    def write(self, name, document):
        path = os.path.join(self.directory.name, name)
        with open(path, "w") as handle:
            handle.write(document if isinstance(document, str) else json.dumps(document))
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              timeout=60)

    def test_pools_rounds_of_every_run(self):
        # Run 1: railyard 8 against 10, then 12 against 10; run 2: 9 against
        # 12 and a round railyard failed.
        first = self.write("a.json", bench_json({
            "openmpi": [{8: 10.0}, {8: 10.0}],
            "default": [{8: 8.0}, {8: 12.0}],
        }))
        second = self.write("b.json", bench_json({
            "openmpi": [{8: 12.0}, {8: 11.0}],
            "default": [{8: 9.0}, {}],
        }))
        done = self.run_script(first, second)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertIn("# 2 run(s); sizes 8", lines)
        # The median of an even count is the upper one, as the bench takes it.
        self.assertIn("# openmpi: lowest 10.000 us, median 11.000 us, 4 rounds", lines)
        row = next(line for line in lines if line.startswith("default "))
        # lowest 8/10; medians 9/11; own ratios 0.8, 1.2, 0.75: median 0.8.
        self.assertEqual(row.split()[1:7], ["0.800", "|", f"{9 / 11:.3f}", "|", "0.800", "(3"])

    def test_pairs_two_subjects_round_by_round(self):
        path = self.write("run.json", bench_json({
            "openmpi": [{8: 10.0, 256: 10.0}, {8: 10.0, 256: 10.0}, {8: 10.0, 256: 10.0}],
            "default": [{8: 5.0, 256: 6.0}, {8: 10.0, 256: 10.0}, {8: 8.0, 256: 8.0}],
            "comm-default": [{8: 5.5, 256: 6.0}, {8: 10.0, 256: 11.0}, {8: 8.0, 256: 8.0}],
        }))
        done = self.run_script("--pair", "comm-default/default", path)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("comm-default/default, median of each round's own: 1.000 1.000",
                      done.stdout)

    def test_a_subject_missing_a_size_is_named_not_divided(self):
        path = self.write("run.json", bench_json({
            "openmpi": [{8: 10.0, 256: 10.0}],
            "raw": [{8: 9.0}],
        }))
        done = self.run_script(path)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("raw", done.stdout)
        self.assertIn("not measured at every size of openmpi's", done.stdout)

    def test_bad_input_names_the_input(self):
        path = self.write("run.json", bench_json({"default": [{8: 5.0}]}))
        done = self.run_script(path)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no subject 'openmpi'", done.stderr)
        self.assertIn("the subjects are default", done.stderr)

        done = self.run_script("--baseline", "default", "--pair", "comm/default", path)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("--pair comm/default", done.stderr)
        self.assertEqual(done.stdout, "")  # nothing printed before the error

        other = self.write("other.json", {"tool": "railyard-bench", "rows": []})
        done = self.run_script(other)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("is not a railyard-mrail-bench --json file", done.stderr)

        broken = self.write("broken.json", "{")
        done = self.run_script(broken)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn(f"cannot read {broken}", done.stderr)


if __name__ == "__main__":
    unittest.main()
