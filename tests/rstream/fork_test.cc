// fork() in a process whose other threads are logging and whose rstream
// background-progress thread is running: the child must not inherit a lock
// taken (and hang on its first log line or environment read), nor wait for a
// thread it does not have (and hang destroying the inherited progress).
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "channel_pair.h"
#include "railyard/common/detail/env.h"
#include "railyard/common/detail/log.h"
#include "railyard/rail/detail/background_progress.h"
#include "tools/support/forked_peer.h"

namespace railyard::rstream {
namespace {

using namespace std::chrono_literals;
using railyard::rail::BackgroundProgress;
using tools::ForkedPeer;

// Sends this process's stderr to /dev/null while it lives: the logging
// threads write thousands of lines.
class QuietStderr {
 public:
  QuietStderr() : saved_(::dup(STDERR_FILENO)) {
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ < 0 || null < 0 || ::dup2(null, STDERR_FILENO) < 0) {
      throw std::runtime_error("could not redirect stderr to /dev/null");
    }
    ::close(null);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;
  QuietStderr(QuietStderr&&) = delete;
  QuietStderr& operator=(QuietStderr&&) = delete;

 private:
  int saved_;
};

// Threads that log (and read the environment) without pause until stopped.
class LogStorm {
 public:
  explicit LogStorm(int threads) {
    for (int t = 0; t < threads; ++t) {
      threads_.emplace_back([this, t] {
        std::uint64_t line = 0;
        while (!stop_.load(std::memory_order_relaxed)) {
          log::warn("log storm thread {} line {}", t, line++);
          (void)env::get("RAILYARD_LOG");
        }
      });
    }
  }
  ~LogStorm() {
    stop_ = true;
    for (auto& thread : threads_) {
      thread.join();
    }
  }
  LogStorm(const LogStorm&) = delete;
  LogStorm& operator=(const LogStorm&) = delete;
  LogStorm(LogStorm&&) = delete;
  LogStorm& operator=(LogStorm&&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

TEST(Fork, ChildrenOfALoggingProcessWithBackgroundProgressRunFreely) {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's libasan does not hold its allocator's locks across fork(): a
  // child of threads that allocate without pause hangs inside libasan's own
  // malloc (seen: a thread the child starts blocks in
  // SizeClassAllocator64::GetFromAllocator). glibc's malloc is fork-safe,
  // so the release build runs this test.
  GTEST_SKIP() << "libasan's allocator is not fork-safe with allocating threads";
#endif
  const QuietStderr quiet;
  const auto saved_level = log::level();
  log::set_level(log::Level::kWarn);
  // Channels whose idle turns run often, so forks land during turns.
  auto options = testing::quick_options();
  options.background_progress = true;
  options.keepalive = 1s;  // idle turns every 125 ms
  testing::ChannelPair pair(options, options);
  const std::shared_ptr<rail::BackgroundProgress> inherited = rail::BackgroundProgress::shared();
  const LogStorm storm(2);

  constexpr int kForks = 40;
  for (int i = 0; i < kForks; ++i) {
    std::shared_ptr<rail::BackgroundProgress> copy = inherited;
    ForkedPeer child([&copy, i](tools::Pipe&) {
      log::warn("child {} of the fork test", i);
      (void)env::get("RAILYARD_LOG");
      // The parent's instance, destroyed here once the channels let go of
      // it, and a new one of the child's own, started and stopped.
      auto own = rail::BackgroundProgress::shared();
      if (own == copy) {
        throw std::runtime_error("the child was handed the parent's progress thread");
      }
      own.reset();
      copy.reset();
    });
    copy.reset();
    const int status = child.wait(10s);
    ASSERT_EQ(status, 0) << "fork " << i << ": the child "
                         << (status == -1000 ? "hung (killed after 10 s)" : "failed");
  }
  log::set_level(saved_level);
}

// The last reference to an inherited instance, dropped in the child, must
// not try to join the parent's thread.
TEST(Fork, AChildDroppingTheInheritedProgressDoesNotJoinTheParentsThread) {
  auto progress = rail::BackgroundProgress::shared();
  ForkedPeer child([&progress](tools::Pipe&) { progress.reset(); });
  EXPECT_EQ(child.wait(10s), 0) << "the child hung destroying the inherited progress thread";
}

}  // namespace
}  // namespace railyard::rstream
