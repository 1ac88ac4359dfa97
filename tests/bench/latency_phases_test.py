#!/usr/bin/env python3
"""Runs scripts/latency-phases.py (its path is the first argument) on a
perf script trace of a ping-pong written here, whose phases are known."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1)
MESSAGES = 1200  # each way: above the script's 1000 reads that mark a rank


def event(pid, time_s, name, text):
    return f" railyard-mrail- {pid}/{pid} [001] {time_s:.9f}: {name}: {text}\n"


def ping_pong(stack_us, found_us, reply_us):
    """Ranks 100 and 101; each message: the sender's packet queued, the
    receiver's socket ready `stack_us` later, read `found_us` after that, and
    the reply queued `reply_us` after the read. Bare acknowledgements, a
    packet on another device and reads that found nothing are mixed in; they
    must not count."""
    lines = []
    now = 1000.0
    sender, receiver = 100, 101
    for _ in range(2 * MESSAGES):
        lines.append(event(sender, now, "net:net_dev_queue", "dev=ry7r1a skbaddr=0x1 len=90"))
        lines.append(event(sender, now + 0.5e-6, "net:net_dev_queue", "dev=ry7r1a skbaddr=0x2 len=52"))
        lines.append(event(sender, now + 0.6e-6, "net:net_dev_queue", "dev=lo skbaddr=0x3 len=400"))
        ready = now + stack_us * 1e-6
        lines.append(event(sender, ready, "sock:sk_data_ready",
                           "family=2 protocol=6 func=sock_def_readable"))
        lines.append(event(receiver, ready + 0.1e-6, "sock:sock_recv_length",
                           "sk address = 0x9, family = AF_INET protocol = IPPROTO_TCP, "
                           "length = -11, error = 0, flags = 0x40"))
        read = ready + found_us * 1e-6
        lines.append(event(receiver, read, "sock:sock_recv_length",
                           "sk address = 0x9, family = AF_INET protocol = IPPROTO_TCP, "
                           "length = 56, error = 0, flags = 0x40"))
        now = read + reply_us * 1e-6
        sender, receiver = receiver, sender
    return "".join(lines)


class LatencyPhases(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.trace = os.path.join(self.directory.name, "trace.txt")

    def tearDown(self):
        self.directory.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, self.trace, *args], capture_output=True,
                              text=True, timeout=60)

    def test_splits_each_message_into_its_three_phases(self):
        with open(self.trace, "w") as handle:
            handle.write(ping_pong(3.0, 2.0, 1.25))
        done = self.run_script()
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = [line for line in done.stdout.splitlines() if not line.startswith("#")]
        self.assertEqual(len(rows), 2, done.stdout)
        for row in rows:
            fields = row.split("|")
            self.assertEqual(fields[0].split()[-3:], ["3.00", "3.00", "3.00"], row)
            self.assertEqual(fields[1].split()[-3:], ["2.00", "2.00", "2.00"], row)
            self.assertEqual(fields[2].split()[-3:], ["1.25", "1.25", "1.25"], row)
            self.assertIn(f"{MESSAGES} messages", fields[3], row)

    def test_pairs_given_by_hand_and_bad_input(self):
        with open(self.trace, "w") as handle:
            handle.write(ping_pong(3.0, 2.0, 1.0))
        done = self.run_script("--pair", "101,100")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("101 from     100", done.stdout)

        done = self.run_script("--pair", "101")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("--pair 101: expected two process ids", done.stderr)

        with open(self.trace, "w") as handle:
            handle.write(event(5, 1.0, "sock:sock_recv_length", "length = 8, error = 0"))
        done = self.run_script()
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no two processes", done.stderr)


if __name__ == "__main__":
    unittest.main()
