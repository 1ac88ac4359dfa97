// Forwards one rank's output stream line by line, each line prefixed with
// the rank ("[2] "), so the lines of several ranks interleave whole.
#pragma once

#include <span>
#include <string>

namespace railyard::run {

class LinePrefixer {
 public:
  // Writes to `out_fd` (the launcher's stdout or stderr).
  LinePrefixer(std::string prefix, int out_fd);

  // Writes every complete line in `bytes` (and what was held before it); a
  // line longer than kMaxHeld goes out in pieces, each prefixed.
  void feed(std::span<const char> bytes);
  // The stream ended: a last line without a newline goes out with one.
  void finish();

  static constexpr std::size_t kMaxHeld = std::size_t{64} * 1024;

 private:
  void emit(std::string_view line);

  std::string prefix_;
  int out_fd_;
  std::string held_;
  std::string scratch_;
};

}  // namespace railyard::run
