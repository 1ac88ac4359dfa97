#!/usr/bin/env python3
"""What the railyard backend says about bad input: errors, never a hang.

Each case expects a RuntimeError whose message names what was wrong:
a tensor on another device than the CPU, a sparse tensor, an element type
railyard does not carry, a bitwise reduction of floats, a root outside the group, split
sizes that do not cut the tensor; then, on a group with a 5 s timeout,
tensors whose sizes differ across ranks, and a rank that does not join a
collective, each an error within the timeout naming a rank: every rank
that times out waiting for the rank that never joins names it. Exit 0 when
every case said what it should and docs/pytorch.md's table of errors
("### Errors") lists every case with words its error holds on some rank
(run on 3 ranks: the table names rank 2).
"""

import datetime
import pathlib
import re
import sys
import time

import torch
import torch.distributed as dist

import railyard.torch  # noqa: F401  registers "railyard"

results = []
messages = {}  # case -> this rank's message
DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "pytorch.md"


def expect_error(what, call, *needles, within=None, any_of=()):
    start = time.monotonic()
    try:
        result = call()
        if hasattr(result, "wait"):
            result.wait()
    except RuntimeError as error:
        elapsed = time.monotonic() - start
        message = str(error)
        missing = [n for n in needles if n not in message]
        if any_of and not any(n in message for n in any_of):
            missing.append(" or ".join(any_of))
        if missing:
            raise AssertionError(f"{what}: the error does not name {missing}: {message}")
        if within is not None and elapsed > within:
            raise AssertionError(f"{what}: the error came after {elapsed:.1f} s, not within "
                                 f"{within} s: {message}")
        results.append(f"{what}: {message.splitlines()[0][:400]}")
        messages[what] = message
        return
    raise AssertionError(f"{what}: no error")


def check_docs(every_rank):
    """Every case has a row in the docs' table of errors whose quoted words
    are in its message on some rank; every row is a case."""
    text = DOCS.read_text()
    table = text[text.index("### Errors"):].split("\n## ")[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| input")]
    documented = {case.strip(): says for case, says in rows}
    cases = set().union(*every_rank)
    assert set(documented) == cases, (f"docs/pytorch.md's errors list {sorted(documented)}, "
                                      f"the cases are {sorted(cases)}")
    for case, says in documented.items():
        for words in re.findall(r"`([^`]+)`", says):
            if not any(words in rank_messages.get(case, "") for rank_messages in every_rank):
                raise AssertionError(f"docs/pytorch.md: '{case}' says `{words}`, which no "
                                     f"rank's error holds")


def main():
    dist.init_process_group("railyard")
    rank, size = dist.get_rank(), dist.get_world_size()

    # A device other than the CPU (no GPU here: the meta device; in inference
    # mode, so that torch's dispatcher hands it on as it would a GPU tensor).
    with torch.inference_mode():
        expect_error("meta tensor", lambda: dist.all_reduce(torch.empty(4, device="meta")),
                     "railyard all_reduce", "on meta", "CPU tensors only")
    expect_error("sparse tensor", lambda: dist.all_reduce(torch.zeros(4).to_sparse()),
                 "railyard all_reduce", "Sparse", "dense")
    expect_error("quantized tensor",
                 lambda: dist.broadcast(torch.quantize_per_tensor(torch.zeros(4), 0.1, 0,
                                                                  torch.quint8), 0),
                 "railyard broadcast", "QUInt8", "is not carried")
    expect_error("bitwise on floats",
                 lambda: dist.all_reduce(torch.zeros(4), op=dist.ReduceOp.BAND),
                 "railyard all_reduce", "bitwise", "Float")
    expect_error("root outside the group", lambda: dist.broadcast(torch.zeros(4), src=size + 3),
                 str(size + 3))
    expect_error("split sizes that do not cut",
                 lambda: dist.all_to_all_single(torch.empty(8), torch.zeros(8),
                                                input_split_sizes=[1] * (size - 1) + [9],
                                                output_split_sizes=[8 // size] * size),
                 "railyard all_to_all_single", "split sizes")
    dist.barrier()

    short = dist.new_group(list(range(size)), timeout=datetime.timedelta(seconds=5))
    # Rank 0 gives one element more than the others: a rank receives more
    # than it expects and names the sender, or times out knowing every rank
    # called the collective.
    expect_error("sizes differ across ranks",
                 lambda: dist.all_reduce(torch.ones(1000 + (rank == 0)), group=short),
                 "rank", within=30,
                 any_of=("is longer than the receive buffer", "every rank has called it"))
    dist.barrier()
    late = dist.new_group(list(range(size)), timeout=datetime.timedelta(seconds=5))
    # The last rank does not join; the others wait, then hear whom each was
    # waiting for.
    if rank != size - 1:
        expect_error("a rank that does not join", lambda: dist.all_reduce(torch.ones(4), group=late),
                     "5000 ms", "waiting to receive from rank",
                     f"rank {size - 1} did not report", within=30)
    dist.barrier()
    behind = dist.new_group(list(range(size)), timeout=datetime.timedelta(seconds=5))
    # The last rank waits for a message that never comes instead; its
    # timeout tells the others it had called none of the group's collectives.
    if rank != size - 1:
        expect_error("a rank in another call", lambda: dist.all_reduce(torch.ones(4), group=behind),
                     f"rank {size - 1} had not called it", "having called 0", within=30)
    else:
        expect_error("a message that never comes",
                     lambda: dist.recv(torch.ones(4), src=0, group=behind, tag=7),
                     "5000 ms", "rank 0", within=30)
    dist.barrier()
    every_rank = [None] * size
    dist.all_gather_object(every_rank, messages)
    if rank == 0:
        check_docs(every_rank)
    for line in results if rank == 0 else results[-3:]:
        print("bad input:", line)
    if rank == 0:
        print(f"bad_inputs: {len(results)} cases said what they should on {size} ranks")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
