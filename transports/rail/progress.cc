#include "railyard/transports/rail/progress.h"

#include <poll.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "railyard/transports/rail/rail.h"

namespace railyard {
namespace {

using Clock = std::chrono::steady_clock;

// While a rail has posts the provider deferred, nothing may signal its wait
// object when room frees up, so sleeps stay this short.
constexpr std::chrono::milliseconds kDeferredPostPoll{1};
// Rails with no wait object are re-polled this often.
constexpr std::chrono::microseconds kNoWaitObjectSleep{100};

// Sleeps until a rail has work or `budget` passes; without `lock` while
// it sleeps, when there is one.
void block(std::span<Rail* const> rails, std::chrono::nanoseconds budget, ProgressLock* lock) {
  std::vector<pollfd> fds;
  fds.reserve(rails.size());
  bool short_sleep = false;
  bool no_wait_object = false;
  for (Rail* rail : rails) {
    short_sleep = short_sleep || rail->has_deferred_posts();
    switch (rail->wait_kind()) {
      case fabric::WaitKind::kFd:
        if (!rail->ready_to_block()) {
          return;  // events are pending: progress instead of sleeping
        }
        fds.push_back(pollfd{rail->wait_fd(), POLLIN, 0});
        break;
      case fabric::WaitKind::kSread:
        if (rails.size() == 1) {
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
  if (no_wait_object) {
    budget = std::min<std::chrono::nanoseconds>(budget, kNoWaitObjectSleep);
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

}  // namespace

bool progress_until(std::span<Rail* const> rails, const std::function<bool()>& done,
                    std::chrono::nanoseconds timeout, const WaitPolicy& policy, PollHint* hint) {
  PollHint local;
  PollHint& poll = hint != nullptr ? *hint : local;
  if (poll.hot >= rails.size()) {
    poll.hot = 0;
  }
  const auto start = Clock::now();
  const auto deadline =
      timeout >= Clock::time_point::max() - start ? Clock::time_point::max() : start + timeout;
  auto last_activity = start;
  // Takes in a rail's completions; other threads asleep on the rails must
  // look at what they finished.
  const auto take_in = [&poll](Rail& rail) {
    const std::size_t n = rail.progress();
    if (n != 0 && poll.lock != nullptr) {
      poll.lock->notify_progress();
    }
    return n;
  };
  while (true) {
    if (poll.lock != nullptr && poll.lock->contended()) {
      poll.lock->hand_over();
    }
    std::size_t completed = take_in(*rails[poll.hot]);
    if (completed != 0 && done()) {
      return true;
    }
    if (rails.size() > 1 && ++poll.turn >= poll.cold_interval) {
      poll.turn = 0;
      std::size_t swept = 0;
      for (std::size_t i = 0; i < rails.size(); ++i) {
        if (i == poll.hot) {
          continue;
        }
        const std::size_t n = take_in(*rails[i]);
        if (n != 0) {
          swept += n;
          poll.hot = i;
          if (done()) {
            poll.cold_interval = PollHint::kMinColdInterval;
            return true;
          }
        }
      }
      completed += swept;
      poll.cold_interval = swept != 0
                               ? PollHint::kMinColdInterval
                               : std::min(poll.cold_interval * 2, PollHint::kMaxColdInterval);
    }
    if (done()) {
      return true;
    }
    const auto now = Clock::now();
    if (completed != 0) {
      last_activity = now;
    }
    if (now >= deadline) {
      return false;
    }
    if (now - last_activity < policy.spin) {
      continue;
    }
    if (poll.before_sleep) {
      poll.before_sleep();
    }
    // Every rail is polled once more before sleeping: a cold rail may hold
    // the completion that ends the wait.
    for (Rail* rail : rails) {
      completed += take_in(*rail);
    }
    if (done()) {
      return true;
    }
    if (completed != 0) {
      last_activity = Clock::now();
      continue;
    }
    block(rails, std::min<std::chrono::nanoseconds>(deadline - now, policy.max_block), poll.lock);
  }
}

}  // namespace railyard
