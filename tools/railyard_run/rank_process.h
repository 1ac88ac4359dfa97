// One rank started by railyard-run: a child process in a process group of
// its own (so stopping it stops whatever it started), its stdout and stderr
// on pipes the launcher reads, stdin from /dev/null, killed with SIGKILL if
// the launcher itself dies (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>
#include <csignal>

#include <optional>
#include <string>
#include <vector>

#include "launch_plan.h"
#include "railyard/common/detail/unique_fd.h"

namespace railyard::run {

class RankProcess {
 public:
  // Starts `command` for `launch`, the child running with `child_mask` as
  // its signal mask. Returns once the program runs. Throws Error naming the
  // call that failed (pipe, fork), or "cannot execute <program>: <why>" when
  // exec failed (no such file, not executable).
  RankProcess(const RankLaunch& launch, const std::vector<std::string>& command,
              const sigset_t& child_mask);
  // A rank still running is killed (SIGKILL to its group) and reaped.
  ~RankProcess();
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;
  RankProcess(RankProcess&&) = delete;
  RankProcess& operator=(RankProcess&&) = delete;

  [[nodiscard]] unsigned rank() const noexcept { return rank_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] bool running() const noexcept { return !status_; }
  // The exit status as a shell gives it: the code, or 128 + the signal.
  [[nodiscard]] std::optional<int> status() const noexcept { return status_; }
  // "exited with status 3", "was killed by signal 9 (Killed)".
  [[nodiscard]] const std::string& how_it_ended() const noexcept { return ended_; }

  // The read ends of its output pipes; reset once they reach end of file.
  [[nodiscard]] UniqueFd& output() noexcept { return stdout_; }
  [[nodiscard]] UniqueFd& errors() noexcept { return stderr_; }

  // Sends `signal` to its process group (it and what it started).
  void signal_group(int signal) const noexcept;
  // Collects its exit status if it has ended; returns whether it has.
  bool reap();

 private:
  unsigned rank_;
  pid_t pid_ = -1;
  UniqueFd stdout_;
  UniqueFd stderr_;
  std::optional<int> status_;
  std::string ended_;
};

}  // namespace railyard::run
