// What a multi-rail endpoint has moved over each rail, so tools and tests can
// see how the policies split traffic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "railyard/rail/rail_counters.h"

namespace railyard::mrail {

struct RailTraffic {
  std::string name;
  bool host_only = false;  // the same-host rail (shared memory)
  // No peer is reached through it (Rail::set_peerless): read now and then.
  bool peerless = false;
  // Messages that put at least one piece on this rail (sender side).
  std::uint64_t messages_sent = 0;
  // Eager payload sent, and RMA bytes written or read, through this rail.
  std::uint64_t bytes_sent = 0;
  std::uint64_t chunks_sent = 0;
  // Eager payload received through this rail, and rendezvous data pulled
  // through it (the receiver reads large messages).
  std::uint64_t bytes_received = 0;
  std::uint64_t chunks_received = 0;
  std::uint64_t errors = 0;
  rail::RailCounters rail;  // the rail's own operation counters
};

// What rail failover did on one path to a peer (docs/architecture.md).
struct PathHealth {
  std::uint64_t downs = 0;
  std::uint64_t ups = 0;
  // Messages (header and payload) that had gone out on this path unacknowledged
  // when it went down, sent again over the others.
  std::uint64_t messages_resent = 0;
  std::uint64_t bytes_resent = 0;
  // Rendezvous bytes that were to be read over this path, read over others.
  std::uint64_t pull_bytes_moved = 0;
  // Probes sent over it after it had been quiet with work pending.
  std::uint64_t probes = 0;
};

// One path to a peer: our rail `local_rail` to its rail `remote_rail`.
struct PathTraffic {
  std::uint32_t peer = 0;  // PeerId::index
  std::size_t local_rail = 0;
  std::size_t remote_rail = 0;
  bool up = true;
  // Numbered messages sent on it and not acknowledged yet (gauges).
  std::uint64_t unacked_messages = 0;
  std::uint64_t unacked_bytes = 0;
  PathHealth health;
};

struct EndpointCounters {
  std::vector<RailTraffic> rails;
  // Every path to every peer, by peer and then path.
  std::vector<PathTraffic> paths;
  std::uint64_t eager_messages = 0;       // sent eagerly
  std::uint64_t rendezvous_messages = 0;  // sent by rendezvous
  std::uint64_t early_arrivals = 0;       // arrived before their turn (another rail was faster)
  std::uint64_t unexpected_messages = 0;  // matched no posted receive on their turn
  std::uint64_t window_waits = 0;         // sends that waited for the peer's credit
  // Credit messages sent: grants that no message to the peer could carry
  // (traffic one way only), see docs/wire-formats.md.
  std::uint64_t credit_messages = 0;
  std::uint64_t dropped_messages = 0;  // malformed, or from a peer never inserted
  // Rail failover: messages that arrived twice (sent again over another
  // path after theirs went down), dropped; acknowledgements sent.
  std::uint64_t duplicates_dropped = 0;
  std::uint64_t acks_sent = 0;
  std::uint64_t registration_hits = 0;
  std::uint64_t registration_misses = 0;
  // Payload bytes of unexpected messages held now (a gauge), and how often a
  // peer's credit was held back because they were over budget.
  std::uint64_t unexpected_bytes = 0;
  std::uint64_t credit_holds = 0;
  // Rendezvous reads: how often a path had its limit (Options::pull_chunk
  // times pull_depth) in flight with chunks waiting, and the most bytes any
  // path has had in flight.
  std::uint64_t pull_stalls = 0;
  std::uint64_t pull_bytes_in_flight_peak = 0;
  // Chunks of one path's share of a message read over another path of the
  // same message, which had posted its own share already.
  std::uint64_t pull_chunks_moved = 0;
  std::uint64_t abandoned_requests = 0;  // destroyed while in flight (see Request)
  // Transfers of abandoned requests whose provider operations are still
  // outstanding (a gauge, not a total).
  std::uint64_t orphaned_transfers = 0;
  // Transfers whose count of pieces left reached 0 while chunks of theirs
  // were still in flight, kept open until those completed (an internal
  // miscount, logged as an error: see Endpoint::held_open).
  std::uint64_t miscounted_transfers = 0;
};

}  // namespace railyard::mrail
