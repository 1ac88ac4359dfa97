// The lock of an object whose rails several threads progress (a multi-rail
// endpoint: its user's threads, a progress thread, the background thread).
//
// A plain mutex held across a wait shuts every other thread out for as long
// as the waiter sleeps on the rails, up to its whole timeout: a thread that
// only wants to post a send waits behind a receive that has nothing to do.
// So a waiter holds this lock while it polls, hands it over when another
// thread asks for it, and lets go of it while it sleeps on the rails' wait
// objects. A thread that takes in completions while others sleep wakes them
// (each sleeper also polls an eventfd of its own), so a request another
// thread completed is seen at once, not at the end of the sleep.
//
// Recursive, as the endpoint's calls nest (a wait's predicate may call
// into the endpoint); a thread holding it more than once keeps it while it
// sleeps, as a plain mutex would.
//
// Every message takes it two or three times on each side, nearly always
// uncontended, so taking and giving it up are inline and cost one atomic
// operation each; only a thread that finds it held leaves the header, to
// block on the lock word (a futex through std::atomic::wait).
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace railyard::rail {

class ProgressLock {
 public:
  ProgressLock() = default;
  ~ProgressLock() = default;
  ProgressLock(const ProgressLock&) = delete;
  ProgressLock& operator=(const ProgressLock&) = delete;
  ProgressLock(ProgressLock&&) = delete;
  ProgressLock& operator=(ProgressLock&&) = delete;

  // Lockable, recursive.
  void lock() noexcept {
    if (!try_lock()) {
      wait_for_word();
      take(std::this_thread::get_id());
    }
  }
  [[nodiscard]] bool try_lock() noexcept {
    const std::thread::id me = std::this_thread::get_id();
    if (owner_.load(std::memory_order_relaxed) == me) {
      ++depth_;
      return true;
    }
    if (!try_take_word()) {
      return false;
    }
    take(me);
    return true;
  }
  void unlock() noexcept {
    if (--depth_ == 0) {
      release();
    }
  }

  // For the holder: whether another thread is waiting for the lock.
  [[nodiscard]] bool contended() const noexcept {
    return contenders_.load(std::memory_order_relaxed) != 0;
  }
  // For the holder: lets the threads waiting for the lock have it, then
  // takes it back. Does nothing while the lock is held more than once.
  void hand_over();

  // For the holder: sleeps in ppoll() on `fds` (given back unchanged) until
  // one is ready, another thread takes in completions (notify_progress),
  // or `timeout` passes; without the lock when it is held once.
  void sleep(std::vector<pollfd>& fds, std::chrono::nanoseconds timeout);

  // For the holder, after taking in completions: wakes the threads asleep
  // in sleep(), each once.
  void notify_progress() noexcept;

  // Wakes every thread asleep in sleep(), e.g. to stop a progress thread.
  void wake_sleepers();

 private:
  struct Sleeper {
    int wake_fd = -1;
    bool woken = false;
  };

  // The lock word's states. kHeldWaitedFor tells the thread that lets go
  // that some thread may be blocked on the word and must be woken.
  enum Word : int { kFree = 0, kHeld = 1, kHeldWaitedFor = 2 };

  [[nodiscard]] bool try_take_word() noexcept {
    int expected = kFree;
    return word_.compare_exchange_strong(expected, kHeld, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }
  void wait_for_word() noexcept;  // blocks until this thread has the word
  void take(std::thread::id me) noexcept {
    owner_.store(me, std::memory_order_relaxed);
    depth_ = 1;
  }
  // Gives the lock up entirely, whatever the depth.
  void release() noexcept {
    depth_ = 0;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    if (word_.exchange(kFree, std::memory_order_release) == kHeldWaitedFor) {
      word_.notify_one();
    }
  }

  std::atomic<int> word_{kFree};
  // Compared only with the caller's own id, which no other thread stores:
  // relaxed order is enough to tell whether the caller holds the lock.
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;                   // holds by the owner
  std::atomic<int> contenders_{0};  // threads blocked in lock()
  std::vector<Sleeper> sleepers_;   // under the lock
};

}  // namespace railyard::rail
