// railyard-run as users run it: output prefixes, exit statuses, stopping
// the job when a rank fails, at its timeout and on Ctrl-C, with no process
// left behind, and refused command lines.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdlib>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "child_output.h"
#include "scoped_env.h"

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using Outcome = railyard::testing::ChildOutput;

// Runs railyard-run with `args`; `after_start` runs once it is started
// (given its pid). Kills it at `bound`.
Outcome launch(const std::vector<std::string>& args,
               const std::function<void(pid_t)>& after_start = {},
               std::chrono::seconds bound = 60s) {
  std::vector<std::string> argv{RAILYARD_RUN_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return railyard::testing::run_program(std::move(argv), {}, bound, after_start);
}

// A scratch directory the ranks write their process ids into.
class PidDirectory {
 public:
  PidDirectory()
      : path_(
            std::filesystem::temp_directory_path() /
            ("railyard-run-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))) {
    std::filesystem::create_directories(path_);
  }
  ~PidDirectory() { std::filesystem::remove_all(path_); }
  PidDirectory(const PidDirectory&) = delete;
  PidDirectory& operator=(const PidDirectory&) = delete;
  PidDirectory(PidDirectory&&) = delete;
  PidDirectory& operator=(PidDirectory&&) = delete;

  [[nodiscard]] std::string path() const { return path_.string(); }

  // Every process id written there (one file each).
  [[nodiscard]] std::vector<pid_t> pids() const {
    std::vector<pid_t> out;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      std::ifstream file(entry.path());
      pid_t pid = 0;
      if (file >> pid) {
        out.push_back(pid);
      }
    }
    return out;
  }

  // Waits until `count` processes wrote their ids.
  [[nodiscard]] bool wait_for(std::size_t count) const {
    const auto deadline = Clock::now() + 20s;
    while (pids().size() < count && Clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
    }
    return pids().size() >= count;
  }

 private:
  static inline int counter = 0;  // NOLINT(*-avoid-non-const-global-variables)
  std::filesystem::path path_;
};

// The line /proc/<pid>/stat holds, or "" once the process is gone.
std::string stat_line(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  return line;
}

// Gone, or a zombie nobody reaped yet (it runs nothing), within a few
// seconds: a process the launcher killed may still be releasing its
// files and memory on a loaded machine after its pipes closed.
::testing::AssertionResult is_gone(pid_t pid) {
  const auto deadline = Clock::now() + 5s;
  std::string line = stat_line(pid);
  while (true) {
    const auto close = line.rfind(')');
    if (line.empty() ||
        (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z')) {
      return ::testing::AssertionSuccess();
    }
    if (Clock::now() >= deadline) {
      return ::testing::AssertionFailure() << "still running 5 s on: " << line;
    }
    std::this_thread::sleep_for(20ms);
    line = stat_line(pid);
  }
}

// Each rank starts a background child, records both ids, then sleeps.
std::vector<std::string> long_ranks(const PidDirectory& pids, unsigned ranks) {
  const std::string script = "sleep 60 & echo $! > " + pids.path() +
                             "/child.$RAILYARD_RANK; echo $$ > " + pids.path() +
                             "/rank.$RAILYARD_RANK; wait";
  return {"-n", std::to_string(ranks), "sh", "-c", script};
}

TEST(RailyardRun, EveryRankGetsTheJobEnvironmentAndItsOutputIsPrefixed) {
  const std::string script =
      "echo rank $RAILYARD_RANK of $RAILYARD_SIZE local $RAILYARD_LOCAL_RANK/"
      "$RAILYARD_LOCAL_SIZE key ${#RAILYARD_JOB_KEY} root $RAILYARD_ROOT; echo oops >&2; "
      "printf 'no newline'";
  const Outcome outcome = launch({"-n", "3", "sh", "-c", script});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  for (int rank = 0; rank < 3; ++rank) {
    const std::string prefix = fmt::format("[{}] ", rank);
    EXPECT_NE(outcome.out.find(fmt::format(
                  "{}rank {} of 3 local {}/3 key 64 root 127.0.0.1:", prefix, rank, rank)),
              std::string::npos)
        << outcome.out;
    EXPECT_NE(outcome.out.find(prefix + "no newline\n"), std::string::npos) << outcome.out;
    EXPECT_NE(outcome.err.find(prefix + "oops\n"), std::string::npos) << outcome.err;
  }
}

// railyard-run numbers local ranks, so only local rank 0 reads the host's
// topology; the others map their rails on the layout its card carried.
TEST(RailyardRun, OnlyLocalRankZeroReadsTheTopology) {
  const railyard::testing::ScopedEnv unnamed("FI_OFI_MRAIL_ADDR", nullptr);
  const railyard::testing::ScopedEnv unnamed_strc("FI_OFI_MRAIL_ADDR_STRC", nullptr);
  const railyard::testing::ScopedEnv no_file("RAILYARD_TOPOLOGY", nullptr);
  const railyard::testing::ScopedEnv info("RAILYARD_LOG", "info");
  const Outcome outcome = launch({"-n", "3", "--timeout", "50", RAILYARD_RING_PATH});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("every value is"), std::string::npos) << outcome.out;
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_NE(outcome.err.find(fmt::format("[{}] ", rank)), std::string::npos) << outcome.err;
    const auto line =
        outcome.err.find(fmt::format("(read by rank 0) for local rank {} of 3", rank));
    EXPECT_NE(line, std::string::npos) << outcome.err;
  }
  EXPECT_EQ(outcome.err.find("read by this rank"), std::string::npos) << outcome.err;
}

// Each rank says once, at info level, how long each start-up step took.
TEST(RailyardRun, EachRankLogsItsStartUpStepsOnce) {
  const railyard::testing::ScopedEnv info("RAILYARD_LOG", "info");
  const Outcome outcome = launch({"-n", "3", "--timeout", "50", RAILYARD_RING_PATH});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  std::size_t lines = 0;
  for (auto at = outcome.err.find("; ready in "); at != std::string::npos;
       at = outcome.err.find("; ready in ", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 3U) << outcome.err;
  for (int rank = 0; rank < 3; ++rank) {
    const auto ready = outcome.err.find(fmt::format("communicator: rank {} of 3", rank));
    ASSERT_NE(ready, std::string::npos) << outcome.err;
    const std::string ready_line = outcome.err.substr(ready, outcome.err.find('\n', ready) - ready);
    std::size_t previous = ready_line.find("; ready in ");
    ASSERT_NE(previous, std::string::npos) << ready_line;
    for (const char* step : {": rank card ", ", bootstrap ", ", rail mapping ", ", endpoint ",
                             ", address exchange "}) {
      const auto at = ready_line.find(step, previous);
      ASSERT_NE(at, std::string::npos) << step << " after the step before in " << ready_line;
      previous = at;
    }
  }
}

TEST(RailyardRun, AnotherLaunchersIdentityIsNotInherited) {
  ASSERT_EQ(::setenv("OMPI_COMM_WORLD_RANK", "7", 1), 0);  // NOLINT(concurrency-mt-unsafe)
  const Outcome outcome =
      launch({"-n", "1", "sh", "-c", "echo \"ompi=${OMPI_COMM_WORLD_RANK:-unset}\""});
  ASSERT_EQ(::unsetenv("OMPI_COMM_WORLD_RANK"), 0);  // NOLINT(concurrency-mt-unsafe)
  EXPECT_EQ(outcome.status, 0);
  EXPECT_NE(outcome.out.find("[0] ompi=unset"), std::string::npos) << outcome.out;
}

TEST(RailyardRun, TheFirstFailureStopsTheOthersAndIsTheExitStatus) {
  const PidDirectory pids;
  std::vector<std::string> args = long_ranks(pids, 4);
  args.back().insert(0, "if [ $RAILYARD_RANK = 2 ]; then sleep 0.5; exit 3; fi; ");
  const auto start = Clock::now();
  const Outcome outcome = launch(args);
  EXPECT_EQ(outcome.status, 3) << outcome.err;
  EXPECT_LT(Clock::now() - start, 15s);
  EXPECT_NE(outcome.err.find("rank 2 exited with status 3"), std::string::npos) << outcome.err;
  for (const pid_t pid : pids.pids()) {
    EXPECT_TRUE(is_gone(pid)) << "process " << pid << " was left behind";
  }
}

TEST(RailyardRun, ARankKilledBySignalGivesShellsStatus) {
  const Outcome outcome =
      launch({"-n", "2", "sh", "-c", "if [ $RAILYARD_RANK = 1 ]; then kill -9 $$; fi; sleep 30"});
  EXPECT_EQ(outcome.status, 128 + SIGKILL) << outcome.err;
  EXPECT_NE(outcome.err.find("rank 1 was killed by signal 9"), std::string::npos) << outcome.err;
}

// Files named `<program>.80s-<pid>,<host>.btr` in a directory.
std::vector<std::string> backtrace_files(const std::string& directory) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".80s-") != std::string::npos && name.ends_with(".btr")) {
      out.push_back(name);
    }
  }
  return out;
}

// Debian's libfabric links PSM's libinfinipath, whose signal handler
// writes a backtrace file into the working directory of any process that
// loaded it and dies of a fatal signal, and turns the death into exit
// status 1. A rank railyard-run starts dies of its signal and leaves no
// file, and a user's own setting of the variable is kept.
TEST(RailyardRun, ACrashingRankLeavesNoBacktraceFileBehind) {
  const PidDirectory scratch;
  const std::string in_scratch =
      fmt::format("cd '{}' && exec '{}'", scratch.path(), RAILYARD_ABORTING_RANK_PATH);
  {
    // Without railyard-run, the same program leaves one on this machine.
    const railyard::testing::ScopedEnv unset("IPATH_NO_BACKTRACE", nullptr);
    ASSERT_NE(std::system(in_scratch.c_str()), 0);  // NOLINT(cert-env33-c,concurrency-mt-unsafe)
    if (backtrace_files(scratch.path()).empty()) {
      GTEST_SKIP() << "this machine's libfabric writes no backtrace files (no libinfinipath)";
    }
    for (const auto& name : backtrace_files(scratch.path())) {
      std::filesystem::remove(std::filesystem::path(scratch.path()) / name);
    }
  }
  {
    const railyard::testing::ScopedEnv unset("IPATH_NO_BACKTRACE", nullptr);
    const Outcome outcome = launch({"-n", "2", "sh", "-c", in_scratch});
    EXPECT_EQ(outcome.status, 128 + SIGABRT) << outcome.err;
    EXPECT_TRUE(backtrace_files(scratch.path()).empty()) << backtrace_files(scratch.path()).front();
  }
  {
    const railyard::testing::ScopedEnv keep("IPATH_NO_BACKTRACE", "yes");
    const Outcome outcome = launch({"-n", "1", "sh", "-c", "echo \"value=$IPATH_NO_BACKTRACE\""});
    EXPECT_NE(outcome.out.find("[0] value=yes\n"), std::string::npos) << outcome.out;
  }
}

TEST(RailyardRun, TheTimeoutStopsTheJobWithStatus124) {
  const PidDirectory pids;
  std::vector<std::string> args = long_ranks(pids, 2);
  args.insert(args.begin(), {"--timeout", "1500ms"});
  const Outcome outcome = launch(args);
  EXPECT_EQ(outcome.status, 124) << outcome.err;
  EXPECT_NE(outcome.err.find("--timeout of 1500 ms"), std::string::npos) << outcome.err;
  EXPECT_EQ(pids.pids().size(), 4U);
  for (const pid_t pid : pids.pids()) {
    EXPECT_TRUE(is_gone(pid)) << "process " << pid << " was left behind";
  }
}

TEST(RailyardRun, CtrlCLeavesNoProcessBehind) {
  const PidDirectory pids;
  // A rank that ignores SIGTERM is killed after the grace period.
  std::vector<std::string> args = long_ranks(pids, 3);
  args.back().insert(0, "trap '' TERM; ");
  const auto start = Clock::now();
  const Outcome outcome = launch(args, [&](pid_t launcher) {
    ASSERT_TRUE(pids.wait_for(6));
    ::kill(launcher, SIGINT);
  });
  EXPECT_EQ(outcome.status, 128 + SIGINT) << outcome.err;
  EXPECT_LT(Clock::now() - start, 20s);
  EXPECT_NE(outcome.err.find("Interrupt"), std::string::npos) << outcome.err;
  ASSERT_EQ(pids.pids().size(), 6U);
  for (const pid_t pid : pids.pids()) {
    EXPECT_TRUE(is_gone(pid)) << "process " << pid << " was left behind";
  }
}

TEST(RailyardRun, BadCommandLinesAreRefusedNamingTheInput) {
  Outcome outcome = launch({"-n", "0", "true"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_NE(outcome.err.find("--np"), std::string::npos) << outcome.err;
  outcome = launch({"-n", "2", "--bind", "socket", "true"});
  EXPECT_NE(outcome.status, 0);
  EXPECT_NE(outcome.err.find("--bind"), std::string::npos) << outcome.err;
  outcome = launch({"-n", "2", "--timeout", "soon", "true"});
  EXPECT_NE(outcome.status, 0);
  EXPECT_NE(outcome.err.find("--timeout"), std::string::npos) << outcome.err;
  outcome = launch({"-n", "2", "--rails", "many", "true"});
  EXPECT_NE(outcome.status, 0);
  EXPECT_NE(outcome.err.find("--rails"), std::string::npos) << outcome.err;
  outcome = launch({"-n", "2"});
  EXPECT_NE(outcome.status, 0);
  EXPECT_NE(outcome.err.find("program"), std::string::npos) << outcome.err;
  outcome = launch({"-n", "2", "/nonexistent/program"});
  EXPECT_EQ(outcome.status, 127);
  EXPECT_NE(outcome.err.find("cannot execute /nonexistent/program"), std::string::npos)
      << outcome.err;
}

// `--` ends the launcher's options, as for mpirun and srun; a later `--`
// is the program's.
TEST(RailyardRun, DoubleDashEndsTheOptions) {
  Outcome outcome = launch(
      {"-n", "2", "--", "sh", "-c", "echo rank $RAILYARD_RANK args \"$*\"", "sh", "--", "x"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("[0] rank 0 args -- x\n"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("[1] rank 1 args -- x\n"), std::string::npos) << outcome.out;
  outcome = launch({"-n", "2", "--"});
  EXPECT_NE(outcome.status, 0);
  EXPECT_NE(outcome.err.find("expected a program to run"), std::string::npos) << outcome.err;
}

TEST(RailyardRun, BindCoreGivesEachRankItsOwnCpus) {
  if (std::thread::hardware_concurrency() < 2) {
    GTEST_SKIP() << "binding two ranks apart needs two CPUs";
  }
  const Outcome outcome =
      launch({"-n", "2", "--bind", "core", "sh", "-c", "grep Cpus_allowed_list /proc/self/status"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  std::istringstream lines(outcome.out);
  std::vector<std::string> lists;
  for (std::string line; std::getline(lines, line);) {
    lists.push_back(line.substr(line.find(':') + 1));
  }
  ASSERT_EQ(lists.size(), 2U) << outcome.out;
  EXPECT_NE(lists[0], lists[1]) << outcome.out;
}

}  // namespace
