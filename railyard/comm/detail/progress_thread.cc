#include "railyard/comm/detail/progress_thread.h"

#include <chrono>
#include <exception>

#include "railyard/common/detail/log.h"

namespace railyard::comm::detail {
namespace {

// The thread wakes at least this often even when nothing arrives; a stop
// request wakes it at once (Endpoint::wake_waiters).
constexpr std::chrono::seconds kLongestSleep{1};
// After the endpoint threw, the thread pauses before trying again, so a
// broken endpoint never has it spin.
constexpr std::chrono::milliseconds kPauseAfterError{10};

}  // namespace

ProgressThread::ProgressThread(mrail::Endpoint& endpoint)
    : endpoint_(endpoint), thread_([this] { run(); }) {}

ProgressThread::~ProgressThread() {
  stop_.store(true, std::memory_order_release);
  try {
    endpoint_.wake_waiters();
  } catch (const std::exception& error) {
    // Without the wake-up it still stops, at its next look (kLongestSleep).
    log::warn("progress thread: waking it to stop: {}", error.what());
  }
  thread_.join();
}

void ProgressThread::run() noexcept {
  const auto stopping = [this] { return stop_.load(std::memory_order_acquire); };
  while (!stopping()) {
    try {
      (void)endpoint_.progress_until(stopping, kLongestSleep);
    } catch (const std::exception& error) {
      log::error("progress thread: {}", error.what());
      std::this_thread::sleep_for(kPauseAfterError);
    }
  }
}

}  // namespace railyard::comm::detail
