// Everything an endpoint keeps about one peer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "railyard/common/intrusive_list.h"
#include "railyard/common/status.h"
#include "railyard/transports/mrail/detail/inbound_message.h"
#include "railyard/transports/mrail/detail/reorder_buffer.h"
#include "railyard/transports/mrail/peer_id.h"
#include "railyard/transports/mrail/request.h"
#include "railyard/transports/mrail/stripe_plan.h"
#include "railyard/transports/rail/rail.h"

namespace railyard::mrail {

// A lane of a rendezvous pull waiting for room on its path
// (LargeTransfer::lanes).
struct PullTurn {
  Request* request = nullptr;
  std::size_t lane = 0;
};

struct Path {
  Path() = default;
  Path(std::size_t local, std::size_t remote, RailPeer peer_address)
      : local_rail(local), remote_rail(remote), address(peer_address) {}

  std::size_t local_rail = 0;
  std::size_t remote_rail = 0;
  RailPeer address;  // the peer's rail in our local rail's address vector
  // Rendezvous reads on this path, across all messages from the peer: the
  // bytes asked for and not yet read, and the lanes waiting for room, first
  // come first served (Endpoint::pump_pulls). The peer answers each read on
  // its end of this path's connection, and its own messages to us wait
  // behind the answers it has queued: bounding them keeps its requests,
  // reads and FINs moving while many large messages are in flight.
  std::uint64_t pull_bytes_in_flight = 0;
  std::deque<PullTurn> waiting_pulls;
  // How a pull reads over it, set as the peer is inserted: reads of at most
  // pull_chunk bytes (0: a share whole), pull_window bytes of them in flight
  // (Options::pull_chunk and pull_depth on a network rail; unbounded on the
  // host rail, whose reads hold no connection).
  std::uint64_t pull_chunk = 0;
  std::uint64_t pull_window = UINT64_MAX;
  // Whether a read of `length` more bytes fits in the window: one always
  // does when none is in flight, however large.
  [[nodiscard]] bool has_room_for(std::uint64_t length) const noexcept {
    return pull_bytes_in_flight == 0 || length <= pull_window - pull_bytes_in_flight;
  }
  // Whose path this is, and where among its paths (set by Peer).
  PeerId peer;
  std::size_t index = 0;
};

struct Peer {
  Peer(PeerId peer_id, std::uint64_t endpoint, std::vector<Path> routes, std::size_t home,
       StripePlan stripes, std::uint32_t fragment, std::uint32_t send_window,
       std::uint32_t receive_window)
      : id(peer_id),
        endpoint_id(endpoint),
        paths(std::move(routes)),
        home_path(home),
        plan(std::move(stripes)),
        max_fragment(fragment),
        window(send_window),
        early(receive_window) {
    for (std::size_t p = 0; p < paths.size(); ++p) {
      paths[p].peer = peer_id;
      paths[p].index = p;
    }
  }

  PeerId id;
  std::uint64_t endpoint_id;
  std::vector<Path> paths;
  std::size_t home_path;
  StripePlan plan;  // over `paths`, weighted by their local rails
  std::uint32_t max_fragment;
  // Largest message sent eagerly: Options::eager_limit, or the host rail's
  // for a same-host peer.
  std::uint64_t eager_limit = 0;
  std::size_t next_path = 0;  // round-robin and stripe rotation, below paths.size()

  // Sending: sequence numbers, and the peer's credit.
  std::uint32_t window;
  SeqNum next_seq = 0;
  SeqNum credit = 0;  // the peer has taken in every message before this one
  IntrusiveList<Request, &Request::queue_hook_> waiting;  // for the window to open

  // Receiving: messages before their turn, and those past it still in use
  // (being assembled, or waiting unexpected for a receive).
  ReorderBuffer<std::unique_ptr<InboundMessage>> early;
  // By ordinal (ReorderBuffer::ordinal_of_past), not sequence number.
  std::unordered_map<std::uint64_t, std::unique_ptr<InboundMessage>> current;
  SeqNum credited = 0;  // the last credit we sent
  // The local rails its last paths.size() + 1 messages arrived on, a ring
  // (see Endpoint::expect_next_arrival).
  std::vector<std::uint8_t> arrivals;
  std::uint64_t arrival_count = 0;
  std::size_t arrival_slot = 0;  // where the next arrival goes in `arrivals`
  // Payload bytes of its messages waiting unexpected, and whether its next
  // credit is held back because they, or all peers', are over budget.
  std::uint64_t unexpected_bytes = 0;
  bool credit_held = false;
  bool credit_hold_logged = false;

  bool failed = false;
  Status failure;

  // The path of the next round-robin message or striped transfer's first
  // piece; the rotation moves on (without a division: once per message).
  [[nodiscard]] std::size_t take_next_path() noexcept {
    const std::size_t path = next_path;
    next_path = path + 1 == paths.size() ? 0 : path + 1;
    return path;
  }

  [[nodiscard]] bool window_open() const noexcept {
    return seq_distance(credit, next_seq) < window;
  }
};

}  // namespace railyard::mrail
