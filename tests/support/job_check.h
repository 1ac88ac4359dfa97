// Checks for test programs run as the ranks of a job (under mpirun or
// railyard-run), where a failed check cannot stop the others: it is printed
// and counted, and the exit status says whether any failed (the launcher
// returns the first non-zero one).
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace railyard::testing {

class JobCheck {
 public:
  void operator()(bool ok, const std::string& what) {
    if (!ok) {
      ++failures_;
      fmt::print(stderr, "FAILED: {}\n", what);
    }
  }
  [[nodiscard]] int failures() const noexcept { return failures_; }
  [[nodiscard]] int exit_status() const noexcept { return failures_ == 0 ? 0 : 1; }

 private:
  int failures_ = 0;
};

}  // namespace railyard::testing
