#include "line_prefixer.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace railyard::run {

LinePrefixer::LinePrefixer(std::string prefix, int out_fd)
    : prefix_(std::move(prefix)), out_fd_(out_fd) {}

void LinePrefixer::feed(std::span<const char> bytes) {
  held_.append(bytes.data(), bytes.size());
  std::size_t start = 0;
  for (std::size_t newline = held_.find('\n'); newline != std::string::npos;
       newline = held_.find('\n', start)) {
    emit(std::string_view{held_}.substr(start, newline + 1 - start));
    start = newline + 1;
  }
  held_.erase(0, start);
  if (held_.size() >= kMaxHeld) {
    held_.push_back('\n');
    emit(held_);
    held_.clear();
  }
}

void LinePrefixer::finish() {
  if (!held_.empty()) {
    held_.push_back('\n');
    emit(held_);
    held_.clear();
  }
}

void LinePrefixer::emit(std::string_view line) {
  // One write per line, so lines of different ranks do not mix.
  scratch_.assign(prefix_);
  scratch_.append(line);
  std::string_view left(scratch_);
  while (!left.empty()) {
    const ssize_t wrote = ::write(out_fd_, left.data(), left.size());
    if (wrote < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN) {  // a non-blocking output that is full: wait for room
        pollfd room{.fd = out_fd_, .events = POLLOUT, .revents = 0};
        (void)::poll(&room, 1, 1000);
        continue;
      }
      return;  // our own output is gone (a closed pipe): the ranks go on
    }
    left.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

}  // namespace railyard::run
