// How long each step of a communicator's start-up took, for the one info
// line a rank logs when it is ready. Start-up time is what a launcher's
// user notices first, and a rank that waited in a step for the slowest
// rank (the bootstrap, the address exchange) shows it there, apart from
// the work it did itself (the rank card, the rail mapping, the endpoint).
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railyard::comm::detail {

class StartupSteps {
 public:
  using Clock = std::chrono::steady_clock;

  // Ends the step under way, started by the previous mark or construction.
  void mark(std::string_view step) {
    const auto now = Clock::now();
    steps_.emplace_back(std::string(step), now - last_);
    last_ = now;
  }

  // "412.3 ms: rank card 20.1 ms, bootstrap 301.0 ms, ..."
  [[nodiscard]] std::string summary() const {
    std::string out = fmt::format("{:.1f} ms", milliseconds(last_ - start_));
    const char* separator = ": ";
    for (const auto& [step, took] : steps_) {
      out += fmt::format("{}{} {:.1f} ms", separator, step, milliseconds(took));
      separator = ", ";
    }
    return out;
  }

 private:
  static double milliseconds(Clock::duration duration) {
    return std::chrono::duration<double, std::milli>(duration).count();
  }

  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
  std::vector<std::pair<std::string, Clock::duration>> steps_;
};

}  // namespace railyard::comm::detail
