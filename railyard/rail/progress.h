// Driving several rails from one thread until something is done.
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "railyard/rail/progress_lock.h"
#include "railyard/rail/wait_policy.h"

namespace railyard::rail {

class Rail;

// Work that no rail announces but that can end a wait: ranks of one host
// that signal each other through flags in shared memory (a collective over
// a host segment). While `waiters` is above zero, a wait sleeps as it does
// on a rail without a wait object (it yields the core for a while after the
// last progress, then sleeps briefly), since no descriptor would wake it;
// each `advances` step counts as progress, as a completion does.
struct OutsideWork {
  std::atomic<std::uint32_t> waiters{0};
  std::atomic<std::uint64_t> advances{0};
};

// Where a waiter's attention goes, kept by the caller (an endpoint keeps
// one) so it survives from wait to wait: the rail that last had completions,
// and how often the others are swept.
struct PollHint {
  static constexpr unsigned kMinColdInterval = 4;
  static constexpr unsigned kMaxColdInterval = 256;
  // The longest the other rails go unswept, however few turns passed: a turn
  // that yields the core can last a scheduler slice, so 256 of them could
  // leave a network rail unread for hundreds of ms while a busy host rail
  // stayed hot.
  static constexpr std::chrono::microseconds kMaxColdGap{100};
  // Every this many sweeps by descriptor, one progresses every rail anyway.
  static constexpr unsigned kFullSweepEvery = 64;
  // Completions on the hot rail in a row that end the spread mode.
  static constexpr unsigned kLeaveSpreadAfter = 8;
  static constexpr std::size_t kNoRail = SIZE_MAX;
  std::size_t hot = 0;
  // Set by the owner: the rail the next completion it awaits will most
  // likely come from (an endpoint follows each peer's rotation over its
  // paths), or kNoRail. While set, it is polled every turn in place of the
  // hot rail, with the rails that have sends in flight.
  std::size_t expected = kNoRail;
  unsigned cold_interval = kMinColdInterval;
  unsigned turn = 0;
  unsigned sweeps = 0;
  unsigned same_rail_streak = 0;
  // Work arrives on changing rails (see progress_until).
  bool spread = false;
  // Per rail: its wait descriptor polled readable with nothing to take in,
  // and was left so. Resetting it (fi_trywait, fi_wait) re-arms the
  // provider's signal, and libfabric's util queues then write the signal on
  // the next completion: a write, a read and polls a message, on the path
  // of every small message that changes rails. A stale
  // rail is progressed in every sweep without asking its descriptor, and
  // only a sleep resets it, as it must.
  std::vector<bool> stale;
  // One sweep's polled descriptors and the rail of each, kept from sweep to
  // sweep.
  std::vector<pollfd> fds;
  std::vector<std::size_t> fd_rails;
  // Work the owner put off the fast path (an endpoint reposts receive
  // buffers, sends acknowledgements owed and checks its paths here), called
  // on the first turn that finds nothing after one that found work or after
  // a sleep, and on the first turn of a wait that finds nothing: the waiter
  // has time then, and a message that was already there is handed over
  // first.
  std::function<void()> on_idle;
  // The owner's lock, held by the caller, when other threads progress the
  // same rails: the wait then hands it to a thread that asks for it, lets
  // go of it while it sleeps, and wakes the other sleepers when it takes
  // in completions (see ProgressLock).
  ProgressLock* lock = nullptr;
  // The owner's work outside the rails, when it has any (see OutsideWork).
  const OutsideWork* outside = nullptr;
};

// Progresses every rail until done() returns true or `timeout` passes, and
// returns done(). Polls without pause while completions arrive and for
// policy.spin after the last one, then sleeps on the rails' wait objects (at
// most policy.max_block at a time), so an idle waiter costs no CPU.
//
// With several rails, each poll of an idle rail costs a system call, and a
// ping-pong's latency grows with the rail count. So the hot rail (the last to
// complete something) is polled every turn and the others in a sweep every
// few turns: every 4th while sweeps find work, backing off to every 256th
// while they find none, as under the fixed policy.
//
// When every rail has a wait descriptor, a sweep is one poll(2) without a
// timeout over the cold rails' descriptors, and only the rails it names
// (and those with work their descriptor does not announce, see
// Rail::has_unannounced_work) are progressed; a descriptor that stays
// signalled after its work was taken in is left signalled until the next
// sleep, and its rail progressed in every sweep meanwhile. Once a
// sweep finds work, the wait enters the spread mode (round-robin and
// striping move each message to the next rail): every turn is such a poll
// over every rail's descriptor, one system call a turn instead of one per
// rail. Eight completions in a row on one rail end it. Every 64th sweep
// progresses every rail anyway, for work a provider might hold without
// signalling its descriptor.
//
// When the owner sets `expected` (the endpoint does when a peer's messages
// follow a pattern it can predict), that rail is progressed every turn
// instead of the hot rail, as under the fixed policy, with the rails that
// have sends in flight, and the spread mode waits; a sweep that finds work
// elsewhere drops an expectation the owner did not renew meanwhile.
//
// Every rail is polled before any sleep, and done() is checked as soon as a
// rail completes work.
bool progress_until(std::span<Rail* const> rails, const std::function<bool()>& done,
                    std::chrono::nanoseconds timeout, const WaitPolicy& policy,
                    PollHint* hint = nullptr);

}  // namespace railyard::rail
