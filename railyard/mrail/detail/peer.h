// Everything an endpoint keeps about one peer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "railyard/common/intrusive_list.h"
#include "railyard/common/status.h"
#include "railyard/mrail/counters.h"
#include "railyard/mrail/detail/inbound_message.h"
#include "railyard/mrail/detail/reorder_buffer.h"
#include "railyard/mrail/detail/retained_queue.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/mrail/request.h"
#include "railyard/mrail/stripe_plan.h"
#include "railyard/rail/rail.h"

namespace railyard::mrail {

// What a receiver knows of a path by which a peer sends to it, named by the
// peer's rail (Header::path_rail): the numbered messages that have arrived
// on it in order, and how many of them it has not acknowledged yet.
struct InboundPath {
  bool seen = false;
  std::uint8_t epoch = 0;
  std::uint32_t received = 0;  // the last path_seq in order
  std::uint32_t unacked = 0;
  std::size_t arrival_rail = 0;  // our rail its last message arrived on
};

// A lane of a rendezvous pull waiting for room on its path
// (LargeTransfer::lanes).
struct PullTurn {
  Request* request = nullptr;
  std::size_t lane = 0;
};

struct Path {
  Path() = default;
  Path(std::size_t local, std::size_t remote, rail::RailPeer peer_address)
      : local_rail(local), remote_rail(remote), address(peer_address) {}

  std::size_t local_rail = 0;
  std::size_t remote_rail = 0;
  rail::RailPeer address;  // the peer's rail in our local rail's address vector
  // One-sided transfers on this path, across all messages from the peer
  // and RMA requests to it (rendezvous reads, a get's reads, a put's writes,
  // a flush's one-byte reads): the bytes posted and not yet completed, and
  // the lanes waiting for room, first come first served
  // (Endpoint::pump_pulls). The peer answers each read on
  // its end of this path's connection, and its own messages to us wait
  // behind the answers it has queued: bounding them keeps its requests,
  // reads and FINs moving while many large messages are in flight.
  std::uint64_t pull_bytes_in_flight = 0;
  // Of those, a put's writes: a rail reset with some posted tells the peer
  // (kFlagWritesInFlight).
  std::uint64_t write_bytes_in_flight = 0;
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

  // Rail failover (docs/architecture.md), for peers with more than one
  // network path while Options::rail_timeout is not 0 (Peer::guarded).
  // A path down carries nothing until it is restored.
  bool up = true;
  // Times the path came back up (mod 256): messages numbered in an earlier
  // life that arrive late are not counted as acknowledgeable.
  std::uint8_t epoch = 0;
  std::uint32_t sent = 0;  // the path_seq of the last numbered message put on it
  // Numbered messages not yet acknowledged, oldest first.
  RetainedQueue unacked;
  PathHealth health;  // counters
  // Signs of life from the peer over this path: messages arriving on its
  // local rail, reads over it completing (counted, not timed, on the fast
  // path). Endpoint::check_paths compares the count between its rounds:
  // `quiet_since` is when it last changed (or when the path had nothing
  // pending); a probe goes out after half the rail timeout of quiet.
  std::uint64_t activity = 0;
  std::uint64_t activity_seen = 0;
  std::chrono::steady_clock::time_point quiet_since{};
  bool probe_outstanding = false;
  // While down: when the next probe to bring it back goes.
  std::chrono::steady_clock::time_point next_retry{};
  std::string down_reason;
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
      live.push_back(p);
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
  std::size_t next_path = 0;  // round-robin and stripe rotation, below live.size()

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
  // When a check last saw a sign of life on any of its paths (failover).
  std::chrono::steady_clock::time_point heard_at{};
  bool credit_held = false;
  bool credit_hold_logged = false;

  bool failed = false;
  Status failure;

  // Rail failover: whether messages to it are numbered per path and kept
  // until acknowledged (more than one network path, Options::rail_timeout
  // not 0); the path of each local rail (kNoPath: none); and the paths by
  // which it sends to us, by its rail index.
  static constexpr std::size_t kNoPath = SIZE_MAX;
  bool guarded = false;
  // Whether its paths are watched for silence with work pending
  // (Options::rail_timeout not 0, a network peer): a path that fails so
  // fails the peer when it is not guarded, so that a large send waiting for
  // a dead peer to read it ends instead of waiting forever.
  bool watched = false;
  // Whether it is taken as paused now: silent on every path past the rail
  // timeout (heard_at, below, says since when).
  bool paused = false;
  std::vector<std::size_t> path_of_rail;
  std::vector<InboundPath> inbound;
  std::size_t ack_cursor = 0;  // where attach_ack looks first in `inbound`
  // By its rail index, the number of the last rail reset notice it sent us
  // about that rail that we acted on (0: none): a copy resent over another
  // path, or an older notice arriving late, is not acted on again.
  std::vector<std::uint32_t> resets_heard;
  // The paths up, in order: what the policies choose from; while some are
  // down, the split over those left.
  std::vector<std::size_t> live;
  std::optional<StripePlan> degraded_plan;

  // The path of the next round-robin message; the rotation over the paths
  // up moves on (without a division: once per message).
  [[nodiscard]] std::size_t take_next_path() noexcept { return live[take_next_live()]; }
  // Splits a striped transfer over the paths up, starting the rotation's
  // next one.
  void split(std::uint64_t size, std::vector<StripePiece>& out) {
    split_from(size, take_next_live(), out);
  }
  // Splits a striped transfer over the paths up, starting at live[first].
  void split_from(std::uint64_t size, std::size_t first, std::vector<StripePiece>& out) const {
    if (!degraded_plan) {
      plan.split(size, first, out);  // every path is up: live[i] is path i
      return;
    }
    degraded_plan->split(size, first, out);
    for (auto& piece : out) {
      piece.path = live[piece.path];
    }
  }
  // The index of the path over our rail `rail`, or kNoPath (no path there,
  // or a rail index from the wire beyond ours).
  [[nodiscard]] std::size_t path_on(std::size_t rail) const noexcept {
    return rail < path_of_rail.size() ? path_of_rail[rail] : kNoPath;
  }
  // The path fixed sends on: its home path while up, else the first up.
  [[nodiscard]] std::size_t home() const noexcept {
    return paths[home_path].up ? home_path : live.front();
  }
  // After a path went down or came back: `up` lists the paths up, in order
  // (not empty), and `degraded` splits over them when some are down.
  void set_live(std::vector<std::size_t> up, std::optional<StripePlan> degraded) {
    live = std::move(up);
    degraded_plan = std::move(degraded);
    next_path = 0;
  }

  [[nodiscard]] bool window_open() const noexcept {
    return seq_distance(credit, next_seq) < window;
  }

 private:
  [[nodiscard]] std::size_t take_next_live() noexcept {
    const std::size_t index = next_path;
    next_path = index + 1 == live.size() ? 0 : index + 1;
    return index;
  }
};

}  // namespace railyard::mrail
