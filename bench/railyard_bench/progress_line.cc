#include "progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "tools/support/report.h"

namespace railyard::bench {

ProgressLine::ProgressLine(std::string what, std::size_t sizes, bool enabled)
    : what_(std::move(what)),
      sizes_(sizes),
      enabled_(enabled),
      terminal_(enabled && isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() {
  if (shown_ && terminal_) {
    fmt::print(stderr, "\n");
  }
}

void ProgressLine::measured(std::size_t done, std::size_t bytes) {
  if (!enabled_) {
    return;
  }
  const Clock::time_point now = Clock::now();
  const auto since_start = std::chrono::duration<double>(now - start_).count();
  const auto since_last = std::chrono::duration<double>(now - last_).count();
  if (since_start < 2 || since_last < (terminal_ ? 0.5 : 10) || done == sizes_) {
    if (!(shown_ && done == sizes_)) {
      return;  // the last size is shown only to close a line already shown
    }
  }
  last_ = now;
  shown_ = true;
  fmt::print(stderr, "{}railyard-bench: {} {} done, {} of {} sizes, {:.0f} s{}",
             terminal_ ? "\r" : "", what_, tools::size_text(bytes), done, sizes_, since_start,
             terminal_ ? "\033[K" : "\n");
  std::fflush(stderr);
}

}  // namespace railyard::bench
