// Runs one side of a test in a child process, connected to the parent by a
// socketpair for exchanging addresses and keys. The child reports failure
// through its exit status, and a parent that finishes early kills it: no test
// leaves a process behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace railyard::tools {

// A message channel over a socketpair: length-prefixed blobs, every read
// bounded by a timeout.
class Pipe {
 public:
  explicit Pipe(int fd) : fd_(fd) {}
  void send(const std::vector<std::byte>& blob) const;
  void send_text(const std::string& text) const;
  // Throws std::runtime_error on timeout or a closed peer.
  [[nodiscard]] std::vector<std::byte> receive(std::chrono::milliseconds timeout) const;
  [[nodiscard]] std::string receive_text(std::chrono::milliseconds timeout) const;

 private:
  int fd_;
};

class ForkedPeer {
 public:
  // Forks; the child runs `body` with its end of the pipe and exits 0 when it
  // returns normally, 1 when it throws (the message goes to stderr).
  explicit ForkedPeer(const std::function<void(Pipe&)>& body);
  ~ForkedPeer();
  ForkedPeer(const ForkedPeer&) = delete;
  ForkedPeer& operator=(const ForkedPeer&) = delete;
  ForkedPeer(ForkedPeer&&) = delete;
  ForkedPeer& operator=(ForkedPeer&&) = delete;

  [[nodiscard]] Pipe& pipe() { return pipe_; }
  // The child's process id (to stop or signal it in failure tests).
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // Waits for the child; returns its exit status, or -signal when it was
  // killed, or -1000 on timeout (the child is then killed).
  int wait(std::chrono::milliseconds timeout);
  // Kills the child (SIGKILL) and reaps it; returns as wait() does.
  int kill_and_wait();

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  Pipe pipe_{-1};
};

}  // namespace railyard::tools
