// Waiting for the transfers a benchmark transport posted: the same for every
// subject whatever its request type.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace railyard::bench {

// Runs progress_until(done, timeout) until every posted slot's request is
// done, then clears `posted`. Throws naming `what` on a timeout or a failed
// transfer. Requests need done() and status().to_string().
template <typename Requests, typename ProgressUntil>
void wait_posted(std::vector<std::size_t>& posted, const Requests& requests,
                 ProgressUntil progress_until, std::chrono::milliseconds timeout,
                 const char* what) {
  const bool done = progress_until(
      [&] {
        return std::all_of(posted.begin(), posted.end(),
                           [&](std::size_t slot) { return requests[slot].done(); });
      },
      timeout);
  if (!done) {
    throw std::runtime_error(
        fmt::format("{}: transfers did not finish within {} ms", what, timeout.count()));
  }
  for (const std::size_t slot : posted) {
    if (!requests[slot].status().ok()) {
      throw std::runtime_error(
          fmt::format("{} transfer failed: {}", what, requests[slot].status().to_string()));
    }
  }
  posted.clear();
}

}  // namespace railyard::bench
