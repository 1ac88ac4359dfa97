// A collective in progress: a coroutine that posts point-to-point transfers
// on its team and suspends until they finish, or runs another
// collective inside it (a ring allreduce is a reduce-scatter, then an
// allgather). Whoever owns the task steps it: a wait's progress loop after
// every completion, or test(). So one algorithm's code is its blocking and
// its non-blocking form, and the next step is posted as soon as the
// transfers before it finish, without a return to the caller.
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <span>
#include <utility>
#include <vector>

#include "railyard/collectives/transfer.h"

namespace railyard::collectives {

// Whether every one of `transfers` has finished (none is progressed).
[[nodiscard]] inline bool all_done(std::span<const Transfer> transfers) noexcept {
  return std::ranges::all_of(transfers, [](const Transfer& transfer) { return transfer.done(); });
}

// Something other than a transfer that a task may wait for: a condition
// other ranks make true without a message (flags they set in memory this
// rank shares with them). Checked on every step, so it must be cheap.
class Readiness {
 public:
  virtual ~Readiness() = default;
  [[nodiscard]] virtual bool ready() const noexcept = 0;
  // The ranks (in whatever numbering the condition has) not there yet, for
  // saying what a stalled collective waits for.
  virtual void behind(std::vector<int>& ranks) const { (void)ranks; }

 protected:
  Readiness() = default;
  Readiness(const Readiness&) = default;
  Readiness& operator=(const Readiness&) = default;
  Readiness(Readiness&&) = default;
  Readiness& operator=(Readiness&&) = default;
};

class CollectiveTask {
 public:
  struct promise_type;
  using Handle = std::coroutine_handle<promise_type>;

  struct promise_type {
    std::span<Transfer> awaited;             // transfers the task waits for
    CollectiveTask* inner = nullptr;         // or a task it runs inside itself
    std::span<CollectiveTask> side_by_side;  // or tasks it runs together
    const Readiness* condition = nullptr;    // or a condition other ranks make true
    std::exception_ptr error;
    std::uint32_t exchanges = 0;  // the transfers it has awaited, in sets

    CollectiveTask get_return_object() noexcept {
      return CollectiveTask(Handle::from_promise(*this));
    }
    // Starts on its first step, not when called: the caller owns it first.
    // (Members, not static: the coroutine calls them on the promise.)
    // NOLINTNEXTLINE(readability-convert-member-functions-to-static)
    std::suspend_always initial_suspend() noexcept { return {}; }
    // NOLINTNEXTLINE(readability-convert-member-functions-to-static)
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { error = std::current_exception(); }
  };

  CollectiveTask() = default;
  ~CollectiveTask() {
    if (handle_) {
      handle_.destroy();  // an unfinished one drops its transfers (Transfer::State's destructor)
    }
  }
  CollectiveTask(CollectiveTask&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  CollectiveTask& operator=(CollectiveTask&& other) noexcept {
    if (this != &other) {
      if (handle_) {
        handle_.destroy();
      }
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  CollectiveTask(const CollectiveTask&) = delete;
  CollectiveTask& operator=(const CollectiveTask&) = delete;

  [[nodiscard]] explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

  // Runs the task as far as it goes without waiting: resumes it while what
  // it awaits has finished. Returns whether it has ended, well or not (at
  // once, for one that has); never throws (an error is kept for rethrow()).
  bool step() noexcept {
    promise_type& promise = handle_.promise();
    while (!handle_.done()) {
      if (promise.inner != nullptr) {
        if (!promise.inner->step()) {
          return false;
        }
        promise.exchanges += promise.inner->exchanges();
        promise.inner = nullptr;
      } else if (!promise.side_by_side.empty()) {
        if (!step_all(promise.side_by_side)) {
          return false;
        }
        promise.exchanges += most_exchanges(promise.side_by_side);
        promise.side_by_side = {};
      } else if (!promise.awaited.empty()) {
        if (!all_done(promise.awaited)) {
          return false;
        }
        promise.awaited = {};
      } else if (promise.condition != nullptr) {
        if (!promise.condition->ready()) {
          return false;
        }
        promise.condition = nullptr;
      }
      handle_.resume();
    }
    return true;
  }

  // Steps every one of `tasks` (each as far as it goes); whether all ended.
  static bool step_all(std::span<CollectiveTask> tasks) noexcept {
    bool ended = true;
    for (CollectiveTask& task : tasks) {
      ended = task.step() && ended;
    }
    return ended;
  }

  // The sets of transfers it has awaited, its finished inner tasks' included.
  [[nodiscard]] std::uint32_t exchanges() const noexcept {
    return handle_ ? handle_.promise().exchanges : 0;
  }
  [[nodiscard]] static std::uint32_t most_exchanges(
      std::span<const CollectiveTask> tasks) noexcept {
    std::uint32_t most = 0;
    for (const CollectiveTask& task : tasks) {
      most = std::max(most, task.exchanges());
    }
    return most;
  }

  // What an unfinished task waits for: filled in by stalled_on().
  struct Stall {
    std::uint32_t exchange = 0;       // which set of transfers, counted from 1
    std::vector<int> receiving_from;  // team ranks (-1: any)
    std::vector<int> sending_to;      // team ranks
    bool on_shared_memory = false;    // or ranks of this host, through memory
    std::vector<int> behind_on_host;  // those ranks, as the host numbers them
  };
  // Adds to `out` what the task waits for now, inner tasks included.
  void stalled_on(Stall& out) const {
    if (!handle_ || handle_.done()) {
      return;
    }
    const promise_type& promise = handle_.promise();
    out.exchange += promise.exchanges;
    if (promise.inner != nullptr) {
      promise.inner->stalled_on(out);
    } else if (!promise.side_by_side.empty()) {
      const std::uint32_t before = out.exchange;
      std::uint32_t furthest = before;
      for (const CollectiveTask& task : promise.side_by_side) {
        Stall one;
        task.stalled_on(one);
        furthest = std::max(furthest, before + one.exchange);
        out.receiving_from.insert(out.receiving_from.end(), one.receiving_from.begin(),
                                  one.receiving_from.end());
        out.sending_to.insert(out.sending_to.end(), one.sending_to.begin(), one.sending_to.end());
        out.on_shared_memory = out.on_shared_memory || one.on_shared_memory;
        out.behind_on_host.insert(out.behind_on_host.end(), one.behind_on_host.begin(),
                                  one.behind_on_host.end());
      }
      out.exchange = furthest;
    } else if (!promise.awaited.empty()) {
      for (const Transfer& transfer : promise.awaited) {
        const Transfer::State* state = transfer.in_flight();
        if (state != nullptr && !transfer.done()) {
          (state->is_receive() ? out.receiving_from : out.sending_to)
              .push_back(state->transfer_peer());
        }
      }
    } else if (promise.condition != nullptr) {
      out.on_shared_memory = true;
      promise.condition->behind(out.behind_on_host);
    }
  }

  // After step() returned true: throws what the task threw, if it did.
  void rethrow() const {
    if (const std::exception_ptr& error = handle_.promise().error) {
      std::rethrow_exception(error);
    }
  }

  // co_await on a task runs it inside the awaiting one; its error is thrown
  // there.
  auto operator co_await() & noexcept {
    struct Awaiter {
      CollectiveTask& task;
      // Members, not static: the coroutine calls them on the awaiter.
      // NOLINTNEXTLINE(readability-convert-member-functions-to-static)
      [[nodiscard]] bool await_ready() const noexcept { return false; }
      [[nodiscard]] bool await_suspend(Handle outer) noexcept {
        if (task.step()) {
          outer.promise().exchanges += task.exchanges();
          return false;
        }
        outer.promise().inner = &task;
        return true;
      }
      void await_resume() const { task.rethrow(); }
    };
    return Awaiter{*this};
  }
  auto operator co_await() && noexcept { return operator co_await(); }

 private:
  explicit CollectiveTask(Handle handle) noexcept : handle_(handle) {}

  Handle handle_;
};

// co_await SideBySide{tasks}: runs the tasks together inside the awaiting
// one (each steps whenever its own transfers allow) until all have ended,
// then throws the first one's error, if any threw. The tasks must outlive
// the await.
struct SideBySide {
  std::span<CollectiveTask> tasks;

  // NOLINTNEXTLINE(readability-convert-member-functions-to-static)
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  [[nodiscard]] bool await_suspend(CollectiveTask::Handle task) const noexcept {
    if (CollectiveTask::step_all(tasks)) {
      task.promise().exchanges += CollectiveTask::most_exchanges(tasks);
      return false;
    }
    task.promise().side_by_side = tasks;
    return true;
  }
  void await_resume() const {
    for (const CollectiveTask& task : tasks) {
      task.rethrow();
    }
  }
};

// co_await Transfers{transfers}: suspends until every transfer has
// finished, then finishes them (throwing the first failure's typed error).
struct Transfers {
  std::span<Transfer> transfers;

  // Through await_suspend every time, so that every set is counted (a
  // stalled task says which it was at); it suspends only when one is left.
  // NOLINTNEXTLINE(readability-convert-member-functions-to-static)
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  [[nodiscard]] bool await_suspend(CollectiveTask::Handle task) const noexcept {
    ++task.promise().exchanges;
    if (all_done(transfers)) {
      return false;
    }
    task.promise().awaited = transfers;
    return true;
  }
  void await_resume() const {
    for (Transfer& transfer : transfers) {
      transfer.finish();
    }
  }
};

// co_await Until{condition}: suspends until condition.ready(). The
// condition (a Readiness) is held in the awaiter, which lives until the
// task resumes.
template <typename Condition>
struct Until {
  Condition condition;

  [[nodiscard]] bool await_ready() const noexcept { return condition.ready(); }
  void await_suspend(CollectiveTask::Handle task) const noexcept {
    task.promise().condition = &condition;
  }
  void await_resume() const noexcept {}
};
template <typename Condition>
Until(Condition) -> Until<Condition>;

}  // namespace railyard::collectives
