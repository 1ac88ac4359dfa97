#include "rank_process.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "railyard/common/detail/errno_text.h"
#include "railyard/common/error.h"

namespace railyard::run {
namespace {

struct PipeEnds {
  UniqueFd read;
  UniqueFd write;
};

PipeEnds make_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) {
    throw Error("pipe2", errno, "pipe2 failed: " + errno_text(errno));
  }
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// In the child, between fork and exec: only async-signal-safe calls. On
// failure the errno goes up the exec pipe and the child exits 127.
[[noreturn]] void become_rank(const std::vector<char*>& argv, const std::vector<char*>& envp,
                              const std::vector<unsigned>& cpus, pid_t launcher, int out_fd,
                              int err_fd, int exec_fd, const sigset_t& mask) {
  const auto fail = [exec_fd](int error) {
    (void)::write(exec_fd, &error, sizeof(error));
    ::_exit(127);
  };
  // Die with the launcher, even when it is SIGKILLed; it may already be gone.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != launcher) {
    ::_exit(127);
  }
  (void)::setpgid(0, 0);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(out_fd, STDOUT_FILENO) < 0 ||
      ::dup2(err_fd, STDERR_FILENO) < 0) {
    fail(errno);
  }
  if (!cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const unsigned cpu : cpus) {
      CPU_SET(cpu, &set);
    }
    if (::sched_setaffinity(0, sizeof(set), &set) != 0) {
      fail(errno);
    }
  }
  (void)::signal(SIGPIPE, SIG_DFL);  // the launcher ignores it; the program should not
  (void)::pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  ::execvpe(argv[0], argv.data(), envp.data());
  fail(errno);
  ::_exit(127);
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& text : strings) {
    out.push_back(text.data());
  }
  out.push_back(nullptr);
  return out;
}

}  // namespace

RankProcess::RankProcess(const RankLaunch& launch, const std::vector<std::string>& command,
                         const sigset_t& child_mask)
    : rank_(launch.rank) {
  if (command.empty()) {
    throw Error("railyard-run: no program to run");
  }
  // Everything exec needs is built before fork: the child only calls
  // async-signal-safe functions.
  std::vector<std::string> arguments = command;
  std::vector<std::string> environment = launch.environment;
  const std::vector<char*> argv = pointers_to(arguments);
  const std::vector<char*> envp = pointers_to(environment);
  PipeEnds out = make_pipe();
  PipeEnds err = make_pipe();
  PipeEnds exec = make_pipe();  // closed by a successful exec (O_CLOEXEC)
  const pid_t launcher = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    throw Error("fork", errno,
                fmt::format("fork for rank {} failed: {}", rank_, errno_text(errno)));
  }
  if (pid_ == 0) {
    become_rank(argv, envp, launch.cpus, launcher, out.write.get(), err.write.get(),
                exec.write.get(), child_mask);
  }
  // Also from this side, so the group exists before any signal is sent to it.
  (void)::setpgid(pid_, pid_);
  out.write.reset();
  err.write.reset();
  exec.write.reset();
  int exec_error = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec.read.get(), &exec_error, sizeof(exec_error));
  } while (got < 0 && errno == EINTR);
  if (got == sizeof(exec_error)) {
    (void)::waitpid(pid_, nullptr, 0);
    status_ = 127;
    throw Error("execvpe", exec_error,
                fmt::format("cannot execute {}: {}", command.front(), errno_text(exec_error)));
  }
  stdout_ = std::move(out.read);
  stderr_ = std::move(err.read);
}

RankProcess::~RankProcess() {
  if (running() && pid_ > 0) {
    signal_group(SIGKILL);
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
  }
}

void RankProcess::signal_group(int signal) const noexcept {
  if (pid_ > 0) {
    (void)::kill(-pid_, signal);
  }
}

bool RankProcess::reap() {
  if (!running()) {
    return true;
  }
  int raw = 0;
  const pid_t done = ::waitpid(pid_, &raw, WNOHANG);
  if (done != pid_) {
    return false;
  }
  if (WIFSIGNALED(raw)) {
    const int signal = WTERMSIG(raw);
    status_ = 128 + signal;
    ended_ = fmt::format("was killed by signal {} ({})", signal, ::sigdescr_np(signal));
  } else {
    status_ = WEXITSTATUS(raw);
    ended_ = fmt::format("exited with status {}", *status_);
  }
  return true;
}

}  // namespace railyard::run
