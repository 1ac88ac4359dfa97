// The background-progress thread's two paces: a task's regular period, and
// the hurried turns a call asks for when it leaves work that only progress
// moves on, which stop once a turn finds none left.
#include "railyard/rail/detail/background_progress.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace railyard::rail {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Counts its turns; says work is left for its first `busy_turns` turns
// after arm().
class CountingTask final : public BackgroundTask {
 public:
  bool background_turn() override {
    turns_.fetch_add(1);
    return busy_left_.fetch_sub(1) > 0;
  }
  void arm(int busy_turns) { busy_left_.store(busy_turns); }
  [[nodiscard]] int turns() const { return turns_.load(); }

 private:
  std::atomic<int> turns_{0};
  std::atomic<int> busy_left_{0};
};

// Waits up to `limit` for `task` to reach `turns`; returns the time taken.
Clock::duration wait_for_turns(const CountingTask& task, int turns, Clock::duration limit) {
  const auto start = Clock::now();
  while (task.turns() < turns && Clock::now() - start < limit) {
    std::this_thread::sleep_for(100us);
  }
  return Clock::now() - start;
}

TEST(BackgroundProgress, AHurryBringsTurnsAtOnceUntilNoWorkIsLeftThenTheRegularPeriod) {
  BackgroundProgress progress;
  CountingTask task;
  progress.add(&task, 1000ms);  // the longest regular period there is
  const int before = task.turns();
  constexpr int kBusyTurns = 20;
  task.arm(kBusyTurns);
  progress.hurry(&task);
  // The first turn comes at once, not after the regular second; then one
  // every kHurriedPeriod while work is left (20 of them: 10 ms), and a last
  // that finds none. Generous limits for a loaded machine, far below the
  // 21 s the regular period would take.
  const auto first = wait_for_turns(task, before + 1, 5s);
  EXPECT_LT(first, 500ms) << "the first hurried turn came after "
                          << std::chrono::duration<double, std::milli>(first).count() << " ms";
  const auto all = wait_for_turns(task, before + kBusyTurns + 1, 10s);
  EXPECT_LT(all, 5s) << "turns: " << task.turns() - before;
  ASSERT_GE(task.turns(), before + kBusyTurns + 1);
  // No work left: back to the regular period, so hardly a turn in 300 ms.
  std::this_thread::sleep_for(50ms);
  const int settled = task.turns();
  std::this_thread::sleep_for(300ms);
  EXPECT_LE(task.turns() - settled, 1);
  progress.remove(&task);
}

TEST(BackgroundProgress, ATaskWithWorkLeftKeepsItsHurryAndTheOthersKeepTheirPace) {
  BackgroundProgress progress;
  CountingTask task;
  CountingTask bystander;
  progress.add(&task, 1000ms);
  progress.add(&bystander, 1000ms);
  task.arm(1000000);  // always work left
  progress.hurry(&task);
  for (int i = 0; i < 1000; ++i) {
    progress.hurry(&task);  // already hurried: returns at once
  }
  const int before = task.turns();
  const int bystander_before = bystander.turns();
  std::this_thread::sleep_for(200ms);
  // Every 500 us for 200 ms: 400 turns on an idle machine; a loaded one
  // still gives far more than the regular period's none.
  EXPECT_GE(task.turns() - before, 20);
  EXPECT_LE(bystander.turns() - bystander_before, 1);
  task.arm(0);
  progress.remove(&task);
  progress.remove(&bystander);
}

}  // namespace
}  // namespace railyard::rail
