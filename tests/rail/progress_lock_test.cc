// ProgressLock: recursive and exclusive, handed over on request, let go of
// while its holder sleeps, and its sleepers woken by progress.
#include "railyard/rail/progress_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace railyard::rail {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Bounds every loop below; no test gets near it unless the lock is broken.
constexpr auto kBound = 10s;

bool try_lock_from_another_thread(ProgressLock& lock) {
  bool taken = false;
  std::thread([&] {
    taken = lock.try_lock();
    if (taken) {
      lock.unlock();
    }
  }).join();
  return taken;
}

TEST(ProgressLock, IsRecursiveAndExclusive) {
  ProgressLock lock;
  lock.lock();
  ASSERT_TRUE(lock.try_lock());  // the holder again
  EXPECT_FALSE(try_lock_from_another_thread(lock));
  lock.unlock();
  EXPECT_FALSE(try_lock_from_another_thread(lock)) << "released after one of two unlocks";
  lock.unlock();
  EXPECT_TRUE(try_lock_from_another_thread(lock));
}

// Threads that take the lock at once, and often find it held, each see the
// others' updates and never overlap: a count kept under the lock (not an
// atomic) ends at the number of increments, and no thread ever finds another
// inside. A thread holding it twice on every second turn exercises the
// recursive path under contention too.
TEST(ProgressLock, ContendingThreadsExcludeEachOther) {
  constexpr int kThreads = 4;
  constexpr int kTurns = 20000;
  ProgressLock lock;
  long count = 0;  // under the lock
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int turn = 0; turn < kTurns; ++turn) {
        const std::scoped_lock hold(lock);
        if (inside.fetch_add(1) != 0) {
          ++overlaps;
        }
        if (turn % 2 == 0) {
          const std::scoped_lock again(lock);
          ++count;
        } else {
          ++count;
        }
        inside.fetch_sub(1);
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(count, static_cast<long>(kThreads) * kTurns);
  EXPECT_TRUE(try_lock_from_another_thread(lock)) << "left held after every thread let go";
}

TEST(ProgressLock, AHolderHandsItToAThreadThatAsks) {
  ProgressLock lock;
  std::atomic<bool> other_had_it{false};
  lock.lock();
  std::thread other([&] {
    lock.lock();
    other_had_it = true;
    lock.unlock();
  });
  // The holder never unlocks; it only hands over when asked.
  const auto until = Clock::now() + kBound;
  while (!other_had_it && Clock::now() < until) {
    if (lock.contended()) {
      lock.hand_over();
    }
  }
  lock.unlock();
  other.join();
  EXPECT_TRUE(other_had_it) << "the waiting thread never got the lock";
}

TEST(ProgressLock, ASleeperLetsGoOfItAndProgressWakesIt) {
  ProgressLock lock;
  std::atomic<bool> holding{false};
  std::atomic<bool> awake{false};
  Clock::duration slept{};
  std::thread sleeper([&] {
    lock.lock();
    holding = true;
    std::vector<pollfd> fds;
    const auto start = Clock::now();
    lock.sleep(fds, 2 * kBound);
    slept = Clock::now() - start;
    EXPECT_TRUE(fds.empty()) << "sleep() must give the poll set back unchanged";
    awake = true;
    lock.unlock();
  });
  while (!holding) {
    std::this_thread::yield();
  }
  // The sleeper let go of the lock: this thread can take it.
  const auto until = Clock::now() + kBound;
  bool taken = false;
  while (!taken && Clock::now() < until) {
    taken = lock.try_lock();
    if (!taken) {
      std::this_thread::sleep_for(1ms);
    }
  }
  ASSERT_TRUE(taken) << "the sleeper kept the lock";
  EXPECT_FALSE(awake);
  lock.notify_progress();
  lock.unlock();
  sleeper.join();
  EXPECT_LT(slept, kBound) << "progress did not wake the sleeper";
}

TEST(ProgressLock, EverySleeperIsWoken) {
  constexpr int kSleepers = 3;
  ProgressLock lock;
  std::atomic<int> asleep{0};
  std::atomic<int> woken{0};
  std::vector<std::thread> sleepers;
  sleepers.reserve(kSleepers);
  for (int i = 0; i < kSleepers; ++i) {
    sleepers.emplace_back([&] {
      const std::scoped_lock hold(lock);
      std::vector<pollfd> fds;
      ++asleep;
      const auto start = Clock::now();
      lock.sleep(fds, 2 * kBound);
      woken += Clock::now() - start < kBound ? 1 : 0;
    });
  }
  const auto until = Clock::now() + kBound;
  while (asleep < kSleepers && Clock::now() < until) {
    std::this_thread::sleep_for(1ms);
  }
  // Each counted itself holding the lock and registered as a sleeper before
  // letting go of it, so the wake-up below cannot miss one.
  lock.wake_sleepers();
  for (auto& thread : sleepers) {
    thread.join();
  }
  EXPECT_EQ(woken, kSleepers);
}

TEST(ProgressLock, HeldTwiceItIsKeptWhileSleeping) {
  ProgressLock lock;
  std::atomic<bool> about_to_sleep{false};
  std::atomic<bool> slept{false};
  std::thread sleeper([&] {
    const std::scoped_lock outer(lock);
    const std::scoped_lock inner(lock);
    std::vector<pollfd> fds;
    about_to_sleep = true;
    lock.sleep(fds, 200ms);
    slept = true;
  });
  while (!about_to_sleep) {
    std::this_thread::yield();
  }
  // Whenever this thread gets it, the sleep is over.
  lock.lock();
  EXPECT_TRUE(slept) << "a thread holding the lock twice let go of it to sleep";
  lock.unlock();
  sleeper.join();
}

}  // namespace
}  // namespace railyard::rail
