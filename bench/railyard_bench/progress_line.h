// The progress of a long sweep on stderr (rank 0 only), so that a run of
// many minutes shows it is alive: rewritten in place on a terminal, a line
// every ten seconds otherwise. Nothing for a sweep that ends within two
// seconds.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace railyard::bench {

class ProgressLine {
 public:
  ProgressLine(std::string what, std::size_t sizes, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ProgressLine(ProgressLine&&) = delete;
  ProgressLine& operator=(ProgressLine&&) = delete;

  // Size number `done` (from 1) of `bytes` has been measured.
  void measured(std::size_t done, std::size_t bytes);

 private:
  using Clock = std::chrono::steady_clock;

  std::string what_;
  std::size_t sizes_;
  bool enabled_;
  bool terminal_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

}  // namespace railyard::bench
