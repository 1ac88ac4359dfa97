// Driving several rails from one thread until something is done.
#pragma once

#include <chrono>
#include <functional>
#include <span>

#include "railyard/transports/rail/progress_lock.h"
#include "railyard/transports/rail/wait_policy.h"

namespace railyard {

class Rail;

// Where a waiter's attention goes, kept by the caller (an endpoint keeps
// one) so it survives from wait to wait: the rail that last had completions,
// and how often the others are swept.
struct PollHint {
  static constexpr unsigned kMinColdInterval = 4;
  static constexpr unsigned kMaxColdInterval = 256;
  std::size_t hot = 0;
  unsigned cold_interval = kMinColdInterval;
  unsigned turn = 0;
  // Called once the spin is over, before sleeping: work the owner put off
  // the fast path (an endpoint reposts receive buffers here).
  std::function<void()> before_sleep;
  // The owner's lock, held by the caller, when other threads progress the
  // same rails: the wait then hands it to a thread that asks for it, lets
  // go of it while it sleeps, and wakes the other sleepers when it takes
  // in completions (see ProgressLock).
  ProgressLock* lock = nullptr;
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
// (about 85 us) while they find none, as under the fixed policy. Every rail
// is polled before any sleep, and done() is checked as soon as a rail
// completes work.
bool progress_until(std::span<Rail* const> rails, const std::function<bool()>& done,
                    std::chrono::nanoseconds timeout, const WaitPolicy& policy,
                    PollHint* hint = nullptr);

}  // namespace railyard
