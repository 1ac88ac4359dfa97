// Runs a program, or collects a child process's stdout and stderr (pipes)
// until both close or a time bound passes, then reaps it: for tests that run
// a program and judge its output and exit status.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

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

// Environment changes for run_program: (name, value), or (name, nullopt)
// to unset it.
using EnvironmentChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Runs `argv` (argv[0] the program's path) with this process's environment
// and `changes` to it, collecting its output as collect_child does (exit
// status 126 when it cannot be executed). `after_start` gets its pid once
// it runs. The child's environment is built before the fork: a
// multithreaded parent's child may only call async-signal-safe functions.
inline ChildOutput run_program(std::vector<std::string> argv, const EnvironmentChanges& changes,
                               std::chrono::seconds bound,
                               const std::function<void(pid_t)>& after_start = {}) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool changed = false;
    for (const auto& change : changes) {
      changed = changed || change.first == name;
    }
    if (!changed) {
      environment.emplace_back(text);
    }
  }
  for (const auto& [name, value] : changes) {
    if (value) {
      environment.push_back(name + "=" + *value);
    }
  }
  std::vector<char*> argv_pointers;
  argv_pointers.reserve(argv.size() + 1);
  for (auto& word : argv) {
    argv_pointers.push_back(word.data());
  }
  argv_pointers.push_back(nullptr);
  std::vector<char*> environment_pointers;
  environment_pointers.reserve(environment.size() + 1);
  for (auto& entry : environment) {
    environment_pointers.push_back(entry.data());
  }
  environment_pointers.push_back(nullptr);

  std::array<int, 2> out{};
  std::array<int, 2> err{};
  if (::pipe2(out.data(), O_CLOEXEC) != 0 || ::pipe2(err.data(), O_CLOEXEC) != 0) {
    return ChildOutput{.status = -1, .out = {}, .err = "pipe2 failed"};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execve(argv_pointers[0], argv_pointers.data(), environment_pointers.data());
    ::_exit(126);
  }
  ::close(out[1]);
  ::close(err[1]);
  if (after_start) {
    after_start(pid);
  }
  return collect_child(pid, out[0], err[0], bound);
}

}  // namespace railyard::testing
