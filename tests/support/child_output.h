// Collects a child process's stdout and stderr (pipes) until both close or
// a time bound passes, then reaps it: for tests that run a program and
// judge its output and exit status.
#pragma once

#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <array>
#include <chrono>
#include <string>

namespace railyard::testing {

struct ChildOutput {
  int status = -1;  // exit status, 128 + signal, or -1 when it ran past the bound
  std::string out;
  std::string err;
};

// Reads `out_fd` and `err_fd` (closing both) until end of file or `bound`;
// a child still running then is killed. Returns what it wrote and how it
// ended.
inline ChildOutput collect_child(pid_t pid, int out_fd, int err_fd, std::chrono::seconds bound) {
  ChildOutput result;
  const auto deadline = std::chrono::steady_clock::now() + bound;
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open = 2;
  while (open > 0 && std::chrono::steady_clock::now() < deadline) {
    if (::poll(fds.data(), fds.size(), 100) <= 0) {
      continue;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd >= 0 && fds[i].revents != 0) {
        std::array<char, 4096> buffer{};
        const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
        if (got <= 0) {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open;
        } else {
          sinks[i]->append(buffer.data(), static_cast<std::size_t>(got));
        }
      }
    }
  }
  int raw = 0;
  if (open > 0) {
    ::kill(pid, SIGKILL);
  }
  ::waitpid(pid, &raw, 0);
  for (const auto& fd : fds) {
    if (fd.fd >= 0) {
      ::close(fd.fd);
    }
  }
  if (open == 0) {
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }
  return result;
}

}  // namespace railyard::testing
