#include "railyard/rail/detail/background_progress.h"

#include <pthread.h>

#include <algorithm>

#include "railyard/common/detail/log.h"

namespace railyard::rail {

// The process's instance, and what fork() holds while it copies the process.
struct BackgroundProgress::Registry {
  std::mutex mutex;
  std::weak_ptr<BackgroundProgress> instance;
  std::shared_ptr<BackgroundProgress> held;  // from before_fork to after it
};

BackgroundProgress::Registry& BackgroundProgress::registry() {
  static Registry registry;
  return registry;
}

std::shared_ptr<BackgroundProgress> BackgroundProgress::shared() {
  static const bool fork_handlers = [] {
    // The logger registers its handlers first (turns log while holding our
    // lock): pthread_atfork runs prepare handlers in reverse order, so ours
    // take our lock before the logger's, as a turn does.
    (void)log::level();
    return pthread_atfork(&before_fork, &after_fork_in_parent, &after_fork_in_child) == 0;
  }();
  if (!fork_handlers) {
    log::warn(
        "background progress: pthread_atfork failed; a child forked while a "
        "turn runs may hang");
  }
  Registry& shared = registry();
  const std::scoped_lock lock(shared.mutex);
  auto current = shared.instance.lock();
  if (!current) {
    current = std::make_shared<BackgroundProgress>();
    shared.instance = current;
  }
  return current;
}

void BackgroundProgress::before_fork() noexcept {
  Registry& shared = registry();
  shared.mutex.lock();
  shared.held = shared.instance.lock();
  if (shared.held) {
    shared.held->mutex_.lock();  // waits for a turn under way to end
  }
}

void BackgroundProgress::after_fork_in_parent() noexcept {
  Registry& shared = registry();
  auto held = std::move(shared.held);
  if (held) {
    held->mutex_.unlock();
  }
  shared.mutex.unlock();
  // `held` may be the last reference, when a task went meanwhile.
}

void BackgroundProgress::after_fork_in_child() noexcept {
  Registry& shared = registry();
  auto held = std::move(shared.held);
  if (held) {
    held->inherited_ = true;
    held->mutex_.unlock();
  }
  shared.instance.reset();
  shared.mutex.unlock();
}

BackgroundProgress::BackgroundProgress()
    : thread_(std::make_unique<std::thread>([this] { run(); })) {
  log::debug("background progress thread started");
}

BackgroundProgress::~BackgroundProgress() {
  if (inherited_) {
    // The thread and the waiter on the condition variable are the parent's:
    // joining, notifying or destroying them here could hang. Both objects
    // are dropped without their destructors (the thread's would end the
    // process for a thread still joinable; the condition variable's would
    // wait for a waiter that does not exist here).
    [[maybe_unused]] std::thread* parents = thread_.release();
    [[maybe_unused]] std::condition_variable* parents_wake = wake_.release();
    return;
  }
  {
    const std::scoped_lock lock(mutex_);
    stopping_ = true;
  }
  wake_->notify_all();
  thread_->join();
  log::debug("background progress thread stopped");
}

std::chrono::milliseconds BackgroundProgress::period_for(std::chrono::milliseconds deadline) {
  return std::clamp<std::chrono::milliseconds>(deadline / 8, std::chrono::milliseconds(10),
                                               std::chrono::milliseconds(100));
}

void BackgroundProgress::add(BackgroundTask* task, std::chrono::milliseconds period) {
  {
    const std::scoped_lock lock(mutex_);
    tasks_.push_back(task);
    period_ = std::min(period_, period);
  }
  wake_->notify_all();  // a shorter period applies from now
}

void BackgroundProgress::remove(BackgroundTask* task) {
  // Turns run under mutex_, so once it is ours no turn touches `task`.
  const std::scoped_lock lock(mutex_);
  std::erase(tasks_, task);
}

void BackgroundProgress::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto period = period_;
    wake_->wait_for(lock, period, [&] { return stopping_ || period_ < period; });
    if (stopping_) {
      break;
    }
    for (BackgroundTask* task : tasks_) {
      task->background_turn();
    }
  }
}

}  // namespace railyard::rail
