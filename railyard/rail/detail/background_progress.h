// A thread that progresses idle transports (stream channels, multi-rail
// endpoints) now and then, so that a process busy elsewhere still takes in
// its peers' data, answers their probes and notices a dead peer. Needed
// because providers such as tcp move data (and acknowledge delivery) only
// when the receiving process calls into libfabric. One per process while
// any task uses it; each task skips its turn while its user is inside a
// call, since that call progresses it.
//
// Across fork(): no turn is running while the process forks (the fork holds
// the lock turns run under). The child has no such thread: the instance it
// inherits is left behind, never joined, and the child's first task starts
// a new one.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace railyard::rail {

// What the thread progresses. background_turn() must not block: it
// try-locks what its user's calls lock, and returns when that fails. It
// returns whether it left work that only progress moves on (sends the
// provider has not finished), to be turned again soon (see hurry()).
class BackgroundTask {
 public:
  virtual ~BackgroundTask() = default;
  virtual bool background_turn() = 0;
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;
  BackgroundTask(BackgroundTask&&) = delete;
  BackgroundTask& operator=(BackgroundTask&&) = delete;

 protected:
  BackgroundTask() = default;

 private:
  friend class BackgroundProgress;
  // Turned every kHurriedPeriod (see BackgroundProgress::hurry). Written
  // under the BackgroundProgress's lock; read without it to skip the lock.
  std::atomic<bool> hurried_{false};
};

class BackgroundProgress {
 public:
  // The process's instance, started on first use and stopped when the last
  // task holding it is gone.
  [[nodiscard]] static std::shared_ptr<BackgroundProgress> shared();

  BackgroundProgress();
  ~BackgroundProgress();
  BackgroundProgress(const BackgroundProgress&) = delete;
  BackgroundProgress& operator=(const BackgroundProgress&) = delete;
  BackgroundProgress(BackgroundProgress&&) = delete;
  BackgroundProgress& operator=(BackgroundProgress&&) = delete;

  // How often to progress a task whose peers give up after `deadline`
  // without a sign of it: an eighth of it, from 10 to 100 ms.
  [[nodiscard]] static std::chrono::milliseconds period_for(std::chrono::milliseconds deadline);

  // `task` is progressed at least every `period` until removed. remove()
  // returns once no turn is using `task`.
  void add(BackgroundTask* task, std::chrono::milliseconds period);
  void remove(BackgroundTask* task);

  // `task`'s user left work that only progress moves on (a bcast's root
  // returns once its data is copied out, before the provider has sent it)
  // and may not call again for long: its turns come every kHurriedPeriod
  // from now until one finds no such work left; the other tasks keep their
  // pace. Cheap while `task` is hurried.
  void hurry(BackgroundTask* task);
  // Short enough that a rail's socket never runs dry between turns (a
  // rail of 1 Gbit/s sends 62 KB in it).
  static constexpr std::chrono::microseconds kHurriedPeriod{500};

 private:
  struct Registry;
  static Registry& registry();
  static void before_fork() noexcept;
  static void after_fork_in_parent() noexcept;
  static void after_fork_in_child() noexcept;
  void run();

  std::mutex mutex_;
  // Owned through a pointer, like the thread, so a fork's child can drop it
  // unfinished: destroying a condition variable the parent's thread was
  // waiting on blocks forever (glibc waits for that waiter to leave).
  std::unique_ptr<std::condition_variable> wake_ = std::make_unique<std::condition_variable>();
  std::vector<BackgroundTask*> tasks_;
  std::chrono::milliseconds period_{1000};
  // When every task is turned next (period_ apart).
  std::chrono::steady_clock::time_point next_regular_ = std::chrono::steady_clock::now() + period_;
  bool hurried_ = false;  // some task is
  bool stopping_ = false;
  bool inherited_ = false;               // a fork's child: the thread is the parent's
  std::unique_ptr<std::thread> thread_;  // last: starts once the members above exist
};

}  // namespace railyard::rail
