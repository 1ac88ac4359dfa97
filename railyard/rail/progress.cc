#include "railyard/rail/progress.h"

#include <poll.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "railyard/rail/rail.h"

namespace railyard::rail {
namespace {

using Clock = std::chrono::steady_clock;

// While a rail has posts the provider deferred, nothing may signal its wait
// object when room frees up, so sleeps stay this short.
constexpr std::chrono::milliseconds kDeferredPostPoll{1};
// Rails with no wait object (libfabric's shm) announce nothing: their work
// is found only by polling them. For this long after the last completion a
// waiter polls them and yields the core between polls, so that the rank it
// waits for, maybe on the same core, runs the step it waits for at once
// (a sleep would cost that step a scheduler tick or the sleep's length);
// after that it sleeps kNoWaitObjectSleep at a time, and so never keeps a
// core busy through a long wait.
constexpr std::chrono::milliseconds kNoWaitObjectYield{2};
constexpr std::chrono::microseconds kNoWaitObjectSleep{100};

// Sleeps until a rail has work or `budget` passes; without `lock` while
// it sleeps, when there is one. `idle`: how long since the last completion.
void block(std::span<Rail* const> rails, std::chrono::nanoseconds budget,
           std::chrono::nanoseconds idle, ProgressLock* lock, const OutsideWork* outside) {
  bool short_sleep = false;
  // Outside work wakes no descriptor: sleep as without a wait object.
  bool no_wait_object = outside != nullptr && outside->waiters.load(std::memory_order_relaxed) != 0;
  for (Rail* rail : rails) {
    short_sleep = short_sleep || rail->has_deferred_posts();
    switch (rail->wait_kind()) {
      case fabric::WaitKind::kFd:
        break;
      case fabric::WaitKind::kSread:
        if (rails.size() == 1 && !no_wait_object) {
          const auto wait = std::chrono::ceil<std::chrono::milliseconds>(
              short_sleep ? std::min<std::chrono::nanoseconds>(budget, kDeferredPostPoll) : budget);
          rail->progress_blocking(wait);
          return;
        }
        no_wait_object = true;  // cannot sleep in one provider while watching others
        break;
      case fabric::WaitKind::kNone:
        no_wait_object = true;
        break;
    }
  }
  // A yield asks no descriptor: arming one (fi_trywait, then a poll) costs
  // two or three system calls, paid on every turn of a wait that yields.
  if (no_wait_object) {
    if (idle < kNoWaitObjectYield) {
      std::this_thread::yield();
      return;
    }
    budget = std::min<std::chrono::nanoseconds>(budget, kNoWaitObjectSleep);
  }
  std::vector<pollfd> fds;
  fds.reserve(rails.size());
  for (Rail* rail : rails) {
    if (rail->wait_kind() == fabric::WaitKind::kFd) {
      if (!rail->ready_to_block()) {
        return;  // events are pending: progress instead of sleeping
      }
      fds.push_back(pollfd{rail->wait_fd(), POLLIN, 0});
    }
  }
  if (short_sleep) {
    budget = std::min<std::chrono::nanoseconds>(budget, kDeferredPostPoll);
  }
  if (lock != nullptr) {
    lock->sleep(fds, budget);
    return;
  }
  if (fds.empty()) {
    std::this_thread::sleep_for(budget);
    return;
  }
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(budget).count();
  (void)poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(ms, 1)));
}

// Chooses the rails a sweep progresses by one poll(2) without a timeout
// over their descriptors: every rail but `skip` (none when it is past the
// last). Rails with work their descriptor does not announce, or whose
// descriptor is stale, are left out of the poll (they are progressed
// anyway). Fills hint.fds and hint.fd_rails.
void poll_descriptors(std::span<Rail* const> rails, PollHint& hint, std::size_t skip) {
  hint.fds.clear();
  hint.fd_rails.clear();
  for (std::size_t i = 0; i < rails.size(); ++i) {
    const Rail& rail = *rails[i];
    if (i != skip && !hint.stale[i] && !rail.has_unannounced_work()) {
      hint.fds.push_back(pollfd{rail.wait_fd(), POLLIN, 0});
      hint.fd_rails.push_back(i);
    }
  }
  if (!hint.fds.empty() && ::poll(hint.fds.data(), hint.fds.size(), 0) < 0) {
    for (pollfd& fd : hint.fds) {
      fd.revents = POLLIN;  // EINTR or ENOMEM: progress them all this once
    }
  }
}

// What a sweep by descriptor learned of `rail`. hint.fd_rails is in rail
// order; `cursor` walks it.
enum class Polled { kNot, kQuiet, kReady };
Polled polled(const PollHint& hint, std::size_t rail, std::size_t& cursor) {
  while (cursor < hint.fd_rails.size() && hint.fd_rails[cursor] < rail) {
    ++cursor;
  }
  if (cursor == hint.fd_rails.size() || hint.fd_rails[cursor] != rail) {
    return Polled::kNot;
  }
  return hint.fds[cursor].revents == 0 ? Polled::kQuiet : Polled::kReady;
}

// Rail `rail` completed work: it becomes the hot rail. Completions on one
// rail in a row end the spread mode (see progress.h).
void note_completion(PollHint& hint, std::size_t rail) {
  if (rail == hint.hot) {
    if (++hint.same_rail_streak >= PollHint::kLeaveSpreadAfter) {
      hint.spread = false;
    }
    return;
  }
  hint.hot = rail;
  hint.same_rail_streak = 0;
}

struct SweepResult {
  std::size_t completed = 0;
  bool done = false;
};

// Progresses the rails of one sweep (all but `skip`), leaving out those
// whose descriptor was polled quiet when `by_descriptor`. Stops as soon as
// done() holds.
template <typename TakeIn>
SweepResult sweep(std::span<Rail* const> rails, PollHint& hint, std::size_t skip,
                  bool by_descriptor, const TakeIn& take_in, const std::function<bool()>& done) {
  std::size_t cursor = 0;
  SweepResult result;
  for (std::size_t i = 0; i < rails.size(); ++i) {
    if (i == skip) {
      continue;
    }
    const Polled seen = by_descriptor ? polled(hint, i, cursor) : Polled::kNot;
    if (seen == Polled::kQuiet) {
      continue;
    }
    const std::size_t n = take_in(*rails[i]);
    if (n != 0) {
      result.completed += n;
      note_completion(hint, i);
      if (done()) {
        result.done = true;
        return result;
      }
    } else if (seen == Polled::kReady) {
      // A descriptor stays signalled after the work that signalled it was
      // taken in. Resetting it here would make the provider signal it again
      // on the next completion (see PollHint::stale): poll the rail itself
      // until the next sleep resets it.
      hint.stale[i] = true;
    }
  }
  return result;
}

}  // namespace

bool progress_until(std::span<Rail* const> rails, const std::function<bool()>& done,
                    std::chrono::nanoseconds timeout, const WaitPolicy& policy, PollHint* hint) {
  PollHint local;
  PollHint& poll = hint != nullptr ? *hint : local;
  if (poll.hot >= rails.size()) {
    poll.hot = 0;
  }
  poll.stale.resize(rails.size(), false);
  const auto start = Clock::now();
  const auto deadline =
      timeout >= Clock::time_point::max() - start ? Clock::time_point::max() : start + timeout;
  auto last_activity = start;
  auto last_sweep = start;
  auto turn_end = start;      // when the last turn ended (read once per turn)
  bool idle_work_due = true;  // poll.on_idle, on the next turn that finds nothing
  std::uint64_t outside_seen =
      poll.outside != nullptr ? poll.outside->advances.load(std::memory_order_relaxed) : 0;
  // Takes in a rail's completions; other threads asleep on the rails must
  // look at what they finished.
  const auto take_in = [&poll](Rail& rail) {
    const std::size_t n = rail.progress();
    if (n != 0 && poll.lock != nullptr) {
      poll.lock->notify_progress();
    }
    return n;
  };
  // Descriptors can choose the rails to progress only when every rail has one.
  const bool descriptors =
      rails.size() > 1 && std::all_of(rails.begin(), rails.end(), [](Rail* rail) {
        return rail->wait_kind() == fabric::WaitKind::kFd;
      });
  if (!descriptors) {
    poll.spread = false;
  }
  while (true) {
    if (poll.lock != nullptr && poll.lock->contended()) {
      poll.lock->hand_over();
    }
    std::size_t completed = 0;
    const bool expected = poll.expected < rails.size();
    if (poll.spread && !expected) {
      // Work arrives on changing rails: every turn asks every descriptor at
      // once, and progresses the rails that answer.
      const bool by_descriptor = ++poll.sweeps % PollHint::kFullSweepEvery != 0;
      if (by_descriptor) {
        poll_descriptors(rails, poll, PollHint::kNoRail);
      }
      const SweepResult swept = sweep(rails, poll, PollHint::kNoRail, by_descriptor, take_in, done);
      if (swept.done) {
        return true;
      }
      completed = swept.completed;
    } else {
      const std::size_t hot = expected ? poll.expected : poll.hot;
      completed = take_in(*rails[hot]);
      if (completed != 0) {
        note_completion(poll, hot);
        if (done()) {
          return true;
        }
      }
      // Awaiting a rail the owner expects, the sends are elsewhere: their
      // rails are progressed every turn too while they have any in flight.
      if (expected) {
        for (std::size_t i = 0; i < rails.size(); ++i) {
          if (i != hot && rails[i]->has_unannounced_work()) {
            const std::size_t n = take_in(*rails[i]);
            completed += n;
            if (n != 0 && done()) {
              return true;
            }
          }
        }
      }
      if (rails.size() > 1 &&
          (++poll.turn >= poll.cold_interval || turn_end - last_sweep >= PollHint::kMaxColdGap)) {
        poll.turn = 0;
        last_sweep = turn_end;
        const bool by_descriptor = descriptors && ++poll.sweeps % PollHint::kFullSweepEvery != 0;
        if (by_descriptor) {
          poll_descriptors(rails, poll, hot);
        }
        const std::size_t expected_before = poll.expected;
        const SweepResult swept = sweep(rails, poll, hot, by_descriptor, take_in, done);
        if (swept.completed != 0) {
          // Work on a rail other than the hot one: with descriptors, watch
          // every rail every turn from now on. An expectation the owner did
          // not renew while the sweep took that work in was wrong: drop it.
          poll.cold_interval = PollHint::kMinColdInterval;
          poll.spread = descriptors;
          if (expected && poll.expected == expected_before) {
            poll.expected = PollHint::kNoRail;
          }
        } else {
          poll.cold_interval = std::min(poll.cold_interval * 2, PollHint::kMaxColdInterval);
        }
        if (swept.done) {
          return true;
        }
        completed += swept.completed;
      }
    }
    if (done()) {
      return true;
    }
    const auto now = Clock::now();
    turn_end = now;
    if (poll.outside != nullptr) {
      const std::uint64_t advances = poll.outside->advances.load(std::memory_order_relaxed);
      if (advances != outside_seen) {
        outside_seen = advances;
        last_activity = now;  // spin and yield on, as after a completion
      }
    }
    if (completed != 0) {
      last_activity = now;
      idle_work_due = true;
    } else if (idle_work_due) {
      idle_work_due = false;
      if (poll.on_idle) {
        poll.on_idle();
      }
    }
    if (now >= deadline) {
      return false;
    }
    if (now - last_activity < policy.spin) {
      if (policy.yield_while_spinning) {
        std::this_thread::yield();
      }
      continue;
    }
    // Every rail is polled once more before sleeping: a cold rail may hold
    // the completion that ends the wait. A rail found with work here becomes
    // the hot rail, as in a sweep: work that only this poll found would
    // otherwise never move the hot rail to where the traffic is.
    // Work found here on a rail other than the awaited one counts as a
    // sweep's find (a loaded host may reach this poll before any sweep):
    // every rail is watched from now on, and an expectation the owner did
    // not renew meanwhile is dropped.
    const std::size_t expected_before = poll.expected;
    const std::size_t awaited = expected_before < rails.size() ? expected_before : poll.hot;
    for (std::size_t i = 0; i < rails.size(); ++i) {
      const std::size_t n = take_in(*rails[i]);
      if (n == 0) {
        continue;
      }
      completed += n;
      if (i != awaited) {
        poll.cold_interval = PollHint::kMinColdInterval;
        poll.spread = descriptors;
        if (expected_before < rails.size() && poll.expected == expected_before) {
          poll.expected = PollHint::kNoRail;
        }
      }
      note_completion(poll, i);
    }
    if (done()) {
      return true;
    }
    if (completed != 0) {
      last_activity = Clock::now();
      idle_work_due = true;
      continue;
    }
    // block() resets every descriptor it will sleep on (a rail it finds
    // with work ends it early: the next sweep learns anew which are stale).
    poll.stale.assign(rails.size(), false);
    block(rails, std::min<std::chrono::nanoseconds>(deadline - now, policy.max_block),
          now - last_activity, poll.lock, poll.outside);
    // The owner's put-off work runs again after each sleep (at most
    // policy.max_block apart): some of it is due by the clock (an endpoint
    // probes quiet paths), not by completions.
    idle_work_due = true;
  }
}

}  // namespace railyard::rail
