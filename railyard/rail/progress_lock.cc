#include "railyard/rail/progress_lock.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <mutex>

#include "railyard/common/detail/unique_fd.h"

namespace railyard::rail {
namespace {

using Clock = std::chrono::steady_clock;

// How long hand_over() lets the threads waiting for the lock take it
// before it queues for the lock again itself.
constexpr std::chrono::milliseconds kHandOverWait{1};

// This thread's own wake-up. Sleepers cannot share one eventfd: the first
// to wake would drain it before the others saw it. -1 when the process has
// no descriptor left, and the thread then sleeps holding the lock.
int wake_fd_of_this_thread() {
  thread_local const UniqueFd wake(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  return wake.get();
}

timespec to_timespec(std::chrono::nanoseconds timeout) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  return timespec{static_cast<std::time_t>(seconds.count()),
                  static_cast<long>((timeout - seconds).count())};
}

}  // namespace

void ProgressLock::wait_for_word() noexcept {
  contenders_.fetch_add(1, std::memory_order_relaxed);
  // The word stays kHeldWaitedFor while this thread holds it even if no
  // other thread waits: one needless wake-up at most, never a lost one.
  while (word_.exchange(kHeldWaitedFor, std::memory_order_acquire) != kFree) {
    word_.wait(kHeldWaitedFor, std::memory_order_relaxed);
  }
  contenders_.fetch_sub(1, std::memory_order_relaxed);
}

void ProgressLock::hand_over() {
  if (depth_ != 1 || !contended()) {
    return;
  }
  release();
  // A contender stops counting itself once it holds the lock; queueing
  // again at once would often win the lock back before it woke.
  const auto until = Clock::now() + kHandOverWait;
  while (contended() && Clock::now() < until) {
    std::this_thread::yield();
  }
  lock();
}

void ProgressLock::sleep(std::vector<pollfd>& fds, std::chrono::nanoseconds timeout) {
  timeout = std::max(timeout, std::chrono::nanoseconds(0));
  const timespec limit = to_timespec(timeout);
  const int wake_fd = depth_ == 1 ? wake_fd_of_this_thread() : -1;
  if (wake_fd < 0) {
    (void)::ppoll(fds.data(), fds.size(), &limit, nullptr);
    return;
  }
  fds.push_back(pollfd{wake_fd, POLLIN, 0});
  sleepers_.push_back(Sleeper{wake_fd, false});
  release();
  (void)::ppoll(fds.data(), fds.size(), &limit, nullptr);
  lock();
  fds.pop_back();
  std::erase_if(sleepers_, [&](const Sleeper& sleeper) { return sleeper.wake_fd == wake_fd; });
  // Drained only now: no thread writes to it once it left sleepers_.
  std::uint64_t count = 0;
  (void)::read(wake_fd, &count, sizeof count);
}

void ProgressLock::notify_progress() noexcept {
  for (Sleeper& sleeper : sleepers_) {
    if (!sleeper.woken) {
      sleeper.woken = true;
      const std::uint64_t one = 1;
      (void)::write(sleeper.wake_fd, &one, sizeof one);
    }
  }
}

void ProgressLock::wake_sleepers() {
  const std::scoped_lock hold(*this);
  notify_progress();
}

}  // namespace railyard::rail
