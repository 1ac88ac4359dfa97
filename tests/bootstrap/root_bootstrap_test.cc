// The root rendezvous with ranks as threads of one process over loopback
// rstream channels, and one rank as a forked process that dies.
#include "railyard/bootstrap/root_bootstrap.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <exception>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "blob_text.h"
#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/framing.h"
#include "railyard/rstream/listener.h"
#include "scoped_env.h"
#include "tools/support/forked_peer.h"

namespace railyard::comm {
namespace {

using namespace std::chrono_literals;
using testing::blob_text;
using testing::text_blob;

bootstrap::BootstrapOptions options_with(std::chrono::milliseconds timeout) {
  bootstrap::BootstrapOptions options;
  options.job_key = "job";
  options.timeout = timeout;
  return options;
}

// A job whose root listens on a port the kernel picked.
class Job {
 public:
  explicit Job(int size, std::chrono::milliseconds timeout = 20s)
      : size_(size), listener_("127.0.0.1:0"), options_(options_with(timeout)) {
    options_.root = listener_.address().to_string();
  }

  [[nodiscard]] const bootstrap::BootstrapOptions& options() const { return options_; }
  [[nodiscard]] int size() const { return size_; }

  // Rank `rank`'s bootstrap; rank 0 takes the listener (once).
  std::unique_ptr<bootstrap::RootBootstrap> join(int rank,
                                                 const bootstrap::BootstrapOptions& options) {
    const bootstrap::Blob descriptor = text_blob("descriptor of rank " + std::to_string(rank));
    if (rank == 0) {
      return std::make_unique<bootstrap::RootBootstrap>(std::move(listener_), size_, descriptor,
                                                        options);
    }
    return std::make_unique<bootstrap::RootBootstrap>(rank, size_, descriptor, options);
  }
  std::unique_ptr<bootstrap::RootBootstrap> join(int rank) { return join(rank, options_); }

  // Runs body(rank, bootstrap) for every listed rank on its own thread;
  // returns each rank's exception (null when it returned).
  std::vector<std::exception_ptr> run(
      const std::vector<int>& ranks,
      const std::function<void(int, bootstrap::RootBootstrap&)>& body =
          [](int, bootstrap::RootBootstrap&) {}) {
    std::vector<std::exception_ptr> errors(ranks.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      threads.emplace_back([&, i] {
        try {
          std::unique_ptr<bootstrap::RootBootstrap> bootstrap;
          try {
            bootstrap = join(ranks[i]);
          } catch (...) {
            ++join_attempts_;
            throw;
          }
          ++join_attempts_;
          body(ranks[i], *bootstrap);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
    for (auto& thread : threads) {
      thread.join();
    }
    return errors;
  }

  // Waits (at most `timeout`) until `count` joins of run() have returned or
  // thrown: the root stops listening when rank 0 leaves, so a rank that is
  // still connecting then would get no answer at all.
  void wait_for_join_attempts(int count, std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (join_attempts_.load() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
  }

  std::vector<std::exception_ptr> run_all(
      const std::function<void(int, bootstrap::RootBootstrap&)>& body =
          [](int, bootstrap::RootBootstrap&) {}) {
    std::vector<int> ranks(static_cast<std::size_t>(size_));
    std::iota(ranks.begin(), ranks.end(), 0);
    return run(ranks, body);
  }

 private:
  int size_;
  std::atomic<int> join_attempts_{0};
  rstream::Listener listener_;
  bootstrap::BootstrapOptions options_;
};

void expect_no_errors(const std::vector<std::exception_ptr>& errors) {
  for (std::size_t rank = 0; rank < errors.size(); ++rank) {
    if (errors[rank]) {
      try {
        std::rethrow_exception(errors[rank]);
      } catch (const std::exception& error) {
        ADD_FAILURE() << "rank " << rank << ": " << error.what();
      }
    }
  }
}

// The message of the exception of type E, or a failure.
template <typename E>
std::string message_of(const std::exception_ptr& error) {
  if (!error) {
    ADD_FAILURE() << "no exception";
    return {};
  }
  try {
    std::rethrow_exception(error);
  } catch (const E& expected) {
    return expected.what();
  } catch (const std::exception& other) {
    ADD_FAILURE() << "unexpected exception: " << other.what();
  }
  return {};
}

class RootBootstrapSizes : public ::testing::TestWithParam<int> {};

TEST_P(RootBootstrapSizes, EveryRankGetsEveryDescriptorAndTheCollectivesAgree) {
  Job job(GetParam());
  const int size = job.size();
  expect_no_errors(job.run_all([size](int rank, bootstrap::RootBootstrap& bootstrap) {
    ASSERT_EQ(bootstrap.rank(), rank);
    ASSERT_EQ(bootstrap.descriptors().size(), static_cast<std::size_t>(size));
    for (int other = 0; other < size; ++other) {
      EXPECT_EQ(blob_text(bootstrap.descriptors()[static_cast<std::size_t>(other)]),
                "descriptor of rank " + std::to_string(other));
    }
    for (int round = 0; round < 3; ++round) {
      const auto all = bootstrap.allgather(text_blob(std::to_string(rank * 10 + round)), 10s);
      ASSERT_EQ(all.size(), static_cast<std::size_t>(size));
      for (int other = 0; other < size; ++other) {
        EXPECT_EQ(blob_text(all[static_cast<std::size_t>(other)]),
                  std::to_string(other * 10 + round));
      }
    }
    const int root = size - 1;
    const bootstrap::Blob got = bootstrap.broadcast(
        root, rank == root ? text_blob("from the last rank") : text_blob("ignored"), 10s);
    EXPECT_EQ(blob_text(got), "from the last rank");
    bootstrap.barrier(10s);
  }));
}

INSTANTIATE_TEST_SUITE_P(Sizes, RootBootstrapSizes, ::testing::Values(1, 2, 3, 5, 8));

TEST(RootBootstrap, AStoreKeyReachesARankThatAskedBeforeItWasSet) {
  Job job(4);
  expect_no_errors(job.run_all([](int rank, bootstrap::RootBootstrap& bootstrap) {
    if (rank == 3) {
      // Asked long before rank 1 sets it.
      EXPECT_EQ(blob_text(bootstrap.store().get("late", 10s)), "set by rank 1");
    }
    if (rank == 0) {
      EXPECT_EQ(blob_text(bootstrap.store().get("late", 10s)), "set by rank 1");
    }
    if (rank == 1) {
      std::this_thread::sleep_for(200ms);
      bootstrap.store().set("late", text_blob("set by rank 1"));
    }
    bootstrap.store().set("rank" + std::to_string(rank), text_blob(std::to_string(rank)));
    const std::vector<std::string> keys{"rank0", "rank1", "rank2", "rank3"};
    bootstrap.store().wait(keys, 10s);
    EXPECT_EQ(blob_text(bootstrap.store().get("rank2", 1s)), "2");
    bootstrap.barrier(10s);
  }));
}

TEST(RootBootstrap, AStoreKeyNobodySetsTimesOutNamingIt) {
  Job job(2);
  const auto errors = job.run_all([](int, bootstrap::RootBootstrap& bootstrap) {
    try {
      (void)bootstrap.store().get("never-set", 300ms);
      ADD_FAILURE() << "get returned";
    } catch (const TimeoutError& error) {
      EXPECT_NE(std::string(error.what()).find("never-set"), std::string::npos) << error.what();
    }
    bootstrap.barrier(10s);
  });
  expect_no_errors(errors);
}

// A raw connection speaking the protocol by hand: what a stray or hostile
// client can send.
rstream::Channel raw_connection(const Job& job) {
  return rstream::Channel::connect(job.options().root);
}

// The root, waiting for the others on its own thread: connections made
// meanwhile are answered (a listener only accepts while its owner asks).
class RootInBackground {
 public:
  explicit RootInBackground(Job& job)
      : job_(job), thread_([this] { errors_ = job_.run({0}, barrier); }) {}
  ~RootInBackground() {
    if (thread_.joinable()) {
      thread_.join();
    }
  }
  RootInBackground(const RootInBackground&) = delete;
  RootInBackground& operator=(const RootInBackground&) = delete;
  RootInBackground(RootInBackground&&) = delete;
  RootInBackground& operator=(RootInBackground&&) = delete;

  // Runs the other ranks, then waits for the root; every rank must succeed.
  void finish() {
    std::vector<int> others(static_cast<std::size_t>(job_.size() - 1));
    std::iota(others.begin(), others.end(), 1);
    expect_no_errors(job_.run(others, barrier));
    thread_.join();
    expect_no_errors(errors_);
  }

 private:
  static void barrier(int /*rank*/, bootstrap::RootBootstrap& bootstrap) { bootstrap.barrier(10s); }

  Job& job_;
  std::vector<std::exception_ptr> errors_;
  std::thread thread_;
};

// Joins as `rank` of a job of `size` with `options`; returns what it threw.
std::exception_ptr try_to_join(int rank, int size, const bootstrap::BootstrapOptions& options) {
  try {
    (void)bootstrap::RootBootstrap(rank, size, {}, options);
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

TEST(RootBootstrap, AConnectionWithTheWrongKeyIsRefusedAndTheJobGoesOn) {
  Job job(3);
  RootInBackground root(job);
  bootstrap::BootstrapOptions options = job.options();
  options.job_key = "another job";
  const std::string message = message_of<ConfigError>(try_to_join(1, 3, options));
  root.finish();
  EXPECT_NE(message.find("RAILYARD_JOB_KEY"), std::string::npos) << message;
  EXPECT_NE(message.find("wrong job key"), std::string::npos) << message;
  EXPECT_EQ(message.find("another job"), std::string::npos) << "the key is not printed";
}

TEST(RootBootstrap, ASecondConnectionForOneRankIsRefused) {
  Job job(3);
  // Both claim rank 1; whichever comes second is refused, the job forms.
  // The job stays up until the second has its answer.
  const auto errors = job.run({0, 1, 1, 2}, [&job](int, bootstrap::RootBootstrap& bootstrap) {
    job.wait_for_join_attempts(4, 20s);
    bootstrap.barrier(10s);
  });
  int refused = 0;
  for (const auto& error : errors) {
    if (error) {
      const std::string message = message_of<ConfigError>(error);
      // Refused for its rank, or, when the job formed before its hello
      // arrived, for coming late.
      EXPECT_TRUE(message.find("rank 1 already joined") != std::string::npos ||
                  message.find("the job is complete") != std::string::npos)
          << message;
      ++refused;
    }
  }
  EXPECT_EQ(refused, 1);
}

TEST(RootBootstrap, AWrongSizeOrAnOutOfRangeRankIsRefused) {
  Job job(2);
  RootInBackground root(job);
  const std::string wrong_size = message_of<ConfigError>(try_to_join(1, 5, job.options()));
  EXPECT_NE(wrong_size.find("job size 5"), std::string::npos) << wrong_size;
  // A rank this job does not have, sent by hand: the root checks the rank
  // against its own size.
  rstream::Channel channel = raw_connection(job);
  std::vector<std::byte> hello;
  ByteWriter writer(hello);
  writer.u32(0x53425952);  // magic
  writer.u16(1);           // version
  writer.u16(0);
  writer.u32(7);  // rank
  writer.u32(2);  // size
  writer.string16("job");
  writer.u32(0);  // descriptor length
  ASSERT_TRUE(rstream::send_frame(channel, 1, hello).ok());
  rstream::Frame reply;
  ASSERT_TRUE(rstream::receive_frame(channel, reply).ok());
  EXPECT_EQ(reply.type, 2) << "a refusal";
  ByteReader reader(reply.payload);
  EXPECT_EQ(reader.u16(), 5) << "for the rank";
  const std::string why = reader.string16();
  EXPECT_NE(why.find("rank 7, expected 1 to 1"), std::string::npos) << why;
  root.finish();
}

TEST(RootBootstrap, AClientThatSendsHalfAFrameDoesNotHoldTheRootUp) {
  Job job(3);
  RootInBackground root(job);
  rstream::Channel stalled = raw_connection(job);
  const std::array<std::byte, 3> partial{};
  ASSERT_TRUE(stalled.send(partial).ok());
  rstream::Channel garbage = raw_connection(job);
  ASSERT_TRUE(rstream::send_frame(garbage, 42, text_blob("not a hello")).ok());
  rstream::Frame reply;
  ASSERT_TRUE(rstream::receive_frame(garbage, reply).ok());
  EXPECT_EQ(reply.type, 2) << "a refusal";
  root.finish();
}

TEST(RootBootstrap, AMissingRankTimesOutAndTheErrorNamesIt) {
  Job job(4, 1500ms);
  const auto errors = job.run({0, 1, 3});
  const std::string root = message_of<TimeoutError>(errors[0]);
  EXPECT_NE(root.find("rank 2 of 4 never arrived"), std::string::npos) << root;
  for (const std::size_t other : {1U, 2U}) {
    const std::string message = message_of<TimeoutError>(errors[other]);
    EXPECT_NE(message.find("rank 2 of 4 never arrived"), std::string::npos) << message;
  }
}

TEST(RootBootstrap, ARankWithNoRootToReachTimesOutNamingTheAddress) {
  bootstrap::BootstrapOptions options = options_with(600ms);
  {
    rstream::Listener taken("127.0.0.1:0");
    options.root = taken.address().to_string();
  }
  try {
    (void)bootstrap::RootBootstrap(1, 2, {}, options);
    FAIL() << "joined without a root";
  } catch (const TimeoutError& error) {
    EXPECT_NE(std::string(error.what()).find(options.root), std::string::npos) << error.what();
  }
}

TEST(RootBootstrap, AnAbortReachesEveryRankWaitingInACollective) {
  Job job(4);
  const auto errors = job.run_all([](int rank, bootstrap::RootBootstrap& bootstrap) {
    bootstrap.barrier(10s);
    if (rank == 2) {
      bootstrap.abort(7, "out of memory");
      return;
    }
    try {
      bootstrap.barrier(10s);
      ADD_FAILURE() << "rank " << rank << ": barrier completed without rank 2";
    } catch (const AbortError& error) {
      EXPECT_EQ(error.rank(), 2);
      EXPECT_EQ(error.code(), 7);
      EXPECT_NE(std::string(error.what()).find("out of memory"), std::string::npos);
    }
    ASSERT_TRUE(bootstrap.failure());
    EXPECT_EQ(bootstrap.failure()->kind, bootstrap::JobFailure::Kind::kAborted);
  });
  expect_no_errors(errors);
}

TEST(RootBootstrap, RanksCallingDifferentCollectivesGetAUsageErrorNamingThem) {
  Job job(3);
  const auto errors = job.run_all([](int rank, bootstrap::RootBootstrap& bootstrap) {
    try {
      if (rank == 1) {
        (void)bootstrap.broadcast(0, {}, 10s);
      } else {
        (void)bootstrap.allgather({}, 10s);
      }
      ADD_FAILURE() << "rank " << rank << " completed a mismatched collective";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("broadcast from rank 0"), std::string::npos)
          << error.what();
    }
  });
  expect_no_errors(errors);
}

TEST(RootBootstrap, ACollectiveARankSkipsTimesOutNamingThatRankAtTheRoot) {
  Job job(3);
  const auto errors = job.run_all([](int rank, bootstrap::RootBootstrap& bootstrap) {
    if (rank == 2) {
      std::this_thread::sleep_for(800ms);
      return;
    }
    try {
      bootstrap.barrier(400ms);
      ADD_FAILURE() << "barrier completed without rank 2";
    } catch (const TimeoutError& error) {
      if (rank == 0) {
        EXPECT_NE(std::string(error.what()).find("rank 2 did not take part"), std::string::npos)
            << error.what();
      }
    }
  });
  expect_no_errors(errors);
}

TEST(RootBootstrap, ARankThatDiesIsNamedToEveryOtherRank) {
  Job job(3);
  const bootstrap::BootstrapOptions options = job.options();
  tools::ForkedPeer child([&](tools::Pipe&) {
    bootstrap::RootBootstrap bootstrap(2, 3, {}, options);
    bootstrap.barrier(10s);
    std::raise(SIGKILL);
  });
  const auto start = std::chrono::steady_clock::now();
  const auto errors = job.run({0, 1}, [](int, bootstrap::RootBootstrap& bootstrap) {
    bootstrap.barrier(10s);
    try {
      (void)bootstrap.allgather({}, 10s);
      ADD_FAILURE() << "allgather completed without rank 2";
    } catch (const RemoteError& error) {
      EXPECT_EQ(error.rank(), 2) << error.what();
    }
  });
  expect_no_errors(errors);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s) << "told within the timeout";
  EXPECT_EQ(child.wait(5s), -SIGKILL);
}

// A job started by hand without a key: the root says so once, at info
// level, and says nothing when the ranks share one.
TEST(RootBootstrap, TheRootNotesAJobWithoutAKeyOnce) {
  const auto level = log::level();
  log::set_level(log::Level::kInfo);
  for (const bool keyed : {false, true}) {
    Job job(2);
    bootstrap::BootstrapOptions options = job.options();
    if (!keyed) {
      options.job_key.clear();
    }
    ::testing::internal::CaptureStderr();
    std::vector<std::exception_ptr> errors(2);
    std::thread other([&] {
      try {
        (void)job.join(1, options);
      } catch (...) {
        errors[1] = std::current_exception();
      }
    });
    try {
      (void)job.join(0, options);
    } catch (...) {
      errors[0] = std::current_exception();
    }
    other.join();
    const std::string said = ::testing::internal::GetCapturedStderr();
    expect_no_errors(errors);
    const std::string note = "no RAILYARD_JOB_KEY is set";
    const std::size_t first = said.find(note);
    if (keyed) {
      EXPECT_EQ(first, std::string::npos) << said;
    } else {
      ASSERT_NE(first, std::string::npos) << said;
      EXPECT_EQ(said.find(note, first + 1), std::string::npos) << "said twice: " << said;
      EXPECT_NE(said.find(job.options().root), std::string::npos) << said;
    }
  }
  log::set_level(level);
}

TEST(BootstrapOptions, BadVariablesAreErrorsNamingThem) {
  {
    const testing::ScopedEnv bad("RAILYARD_BOOTSTRAP", "carrier-pigeon");
    EXPECT_THROW((void)bootstrap::BootstrapOptions::from_environment(), ConfigError);
  }
  {
    const testing::ScopedEnv bad("RAILYARD_BOOTSTRAP_TIMEOUT", "soon");
    try {
      (void)bootstrap::BootstrapOptions::from_environment();
      FAIL();
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.input(), "RAILYARD_BOOTSTRAP_TIMEOUT");
    }
  }
  {
    const testing::ScopedEnv bad("RAILYARD_ROOT", "no-port-here");
    EXPECT_THROW((void)bootstrap::BootstrapOptions::from_environment(), ConfigError);
  }
  {
    const std::string long_key(300, 'k');
    const testing::ScopedEnv bad("RAILYARD_JOB_KEY", long_key.c_str());
    EXPECT_THROW((void)bootstrap::BootstrapOptions::from_environment(), ConfigError);
  }
  {
    const testing::ScopedEnv good("RAILYARD_BOOTSTRAP_TIMEOUT", "1500ms");
    const testing::ScopedEnv root("RAILYARD_ROOT", "tcp://127.0.0.1:7000");
    const testing::ScopedEnv method("RAILYARD_BOOTSTRAP", "ROOT");
    const bootstrap::BootstrapOptions options = bootstrap::BootstrapOptions::from_environment();
    EXPECT_EQ(options.timeout, 1500ms);
    EXPECT_EQ(options.method, bootstrap::BootstrapMethod::kRoot);
    EXPECT_EQ(options.root, "tcp://127.0.0.1:7000");
  }
}

}  // namespace
}  // namespace railyard::comm
