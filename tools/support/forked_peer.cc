#include "tools/support/forked_peer.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace railyard::tools {
namespace {

using Clock = std::chrono::steady_clock;

void write_all(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw std::runtime_error(std::string("pipe write failed: ") +
                               std::system_category().message(errno));
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

void read_all(int fd, void* data, std::size_t size, Clock::time_point deadline) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      throw std::runtime_error("timed out reading from the peer process");
    }
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      continue;
    }
    const ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw std::runtime_error("the peer process closed its pipe");
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

void Pipe::send(const std::vector<std::byte>& blob) const {
  const std::uint64_t size = blob.size();
  write_all(fd_, &size, sizeof(size));
  write_all(fd_, blob.data(), blob.size());
}

void Pipe::send_text(const std::string& text) const {
  send(std::vector<std::byte>(reinterpret_cast<const std::byte*>(text.data()),
                              reinterpret_cast<const std::byte*>(text.data()) + text.size()));
}

std::vector<std::byte> Pipe::receive(std::chrono::milliseconds timeout) const {
  const auto deadline = Clock::now() + timeout;
  std::uint64_t size = 0;
  read_all(fd_, &size, sizeof(size), deadline);
  if (size > (1U << 30)) {
    throw std::runtime_error("peer process sent an implausible blob size");
  }
  std::vector<std::byte> blob(size);
  read_all(fd_, blob.data(), blob.size(), deadline);
  return blob;
}

std::string Pipe::receive_text(std::chrono::milliseconds timeout) const {
  const auto blob = receive(timeout);
  return {reinterpret_cast<const char*>(blob.data()), blob.size()};
}

ForkedPeer::ForkedPeer(const std::function<void(Pipe&)>& body) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error(std::string("socketpair failed: ") +
                             std::system_category().message(errno));
  }
  std::fflush(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) {
    throw std::runtime_error(std::string("fork failed: ") + std::system_category().message(errno));
  }
  if (pid_ == 0) {
    ::close(fds[0]);
    Pipe child_pipe(fds[1]);
    int status = 0;
    try {
      body(child_pipe);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "forked peer failed: %s\n", e.what());
      status = 1;
    } catch (...) {
      std::fprintf(stderr, "forked peer failed with an unknown exception\n");
      status = 1;
    }
    std::fflush(nullptr);
    ::_exit(status);  // never return into the test runner
  }
  ::close(fds[1]);
  fd_ = fds[0];
  pipe_ = Pipe(fd_);
}

int ForkedPeer::wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) {
    return -1;
  }
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
      }
      return WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
    }
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      return -1000;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int ForkedPeer::kill_and_wait() {
  if (pid_ <= 0) {
    return -1;
  }
  ::kill(pid_, SIGKILL);
  return wait(std::chrono::seconds(30));
}

ForkedPeer::~ForkedPeer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

}  // namespace railyard::tools
