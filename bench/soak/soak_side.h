// One host's side of the soak: an endpoint over its rails that sends its
// direction's messages to the other host and receives and checks the other
// direction's, a window of each per stream in flight, until both are
// through or nothing completes for the stall timeout.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/support/forked_peer.h"

namespace railyard::soak {

struct SideOptions {
  std::vector<std::string> rails;
  std::uint64_t seed = 1;
  unsigned direction = 0;      // 0: this side is host a (sends direction 0)
  std::uint64_t messages = 0;  // sent by this side, and by the other
  std::size_t max_size = 0;
  std::size_t window = 32;  // in flight per stream, each way
  std::chrono::seconds stall_timeout{60};
};

struct SideReport {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t wildcard_receives = 0;
  // Received, but not the message expected at that place of its stream:
  // what a loss, a duplicate or a reordering looks like from here.
  std::uint64_t wrong = 0;
  // Sends and receives that completed with an error status.
  std::uint64_t failed = 0;
  std::string first_problem;
  bool finished = false;  // every message sent and received
  double seconds = 0;
  // The endpoint's own account (counters summed over its paths).
  std::uint64_t duplicates_dropped = 0;
  std::uint64_t path_downs = 0;
  std::uint64_t path_ups = 0;
  std::uint64_t messages_resent = 0;
  std::uint64_t bytes_resent = 0;
  std::uint64_t rail_resets = 0;
};

void to_json(nlohmann::json& out, const SideReport& report);
void from_json(const nlohmann::json& in, SideReport& report);

// Runs the side; `peer` connects it to the other side (addresses, and the
// end of the run). `connected` is called once the endpoint is open and has
// the peer, before any traffic. Throws on setup errors; a failed run is in
// the report.
[[nodiscard]] SideReport run_side(const SideOptions& options, const tools::Pipe& peer,
                                  const std::function<void()>& connected);

}  // namespace railyard::soak
