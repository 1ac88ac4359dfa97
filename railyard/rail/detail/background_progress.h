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

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace railyard::rail {

// What the thread progresses. background_turn() must not block: it
// try-locks what its user's calls lock, and returns when that fails.
class BackgroundTask {
 public:
  virtual ~BackgroundTask() = default;
  virtual void background_turn() = 0;

 protected:
  BackgroundTask() = default;
  BackgroundTask(const BackgroundTask&) = default;
  BackgroundTask& operator=(const BackgroundTask&) = default;
  BackgroundTask(BackgroundTask&&) = default;
  BackgroundTask& operator=(BackgroundTask&&) = default;
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
  bool stopping_ = false;
  bool inherited_ = false;               // a fork's child: the thread is the parent's
  std::unique_ptr<std::thread> thread_;  // last: starts once the members above exist
};

}  // namespace railyard::rail
