// Which paths to each peer are in service (docs/architecture.md, "Rail
// failover"): arrivals and completed reads count as a path's signs of life;
// a path with work pending that falls quiet is probed, and taken down when
// it stays quiet while another path to the peer answers, or its rail
// reports a failure, what it held going over the peer's other paths; a
// path down is probed now and then and returns when it answers. A peer
// silent on every path at once is paused, not cut off: it fails only past
// the peer timeout. A peer whose last path fails, fails.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/rail/rail.h"

namespace railyard::mrail::detail {

struct Core;

class PathMonitor {
 public:
  explicit PathMonitor(Core& core) noexcept : core_(core) {}

  // A sign of life from `peer` over our rail `rail` (counted, not timed).
  static void note_activity(Peer& peer, std::size_t rail) noexcept {
    if (const std::size_t path = peer.path_on(rail); path != Peer::kNoPath) {
      ++peer.paths[path].activity;
    }
  }
  // Every eighth of the rail timeout: probes a path with work pending quiet
  // for half of it, takes it down once quiet for all of it, and probes the
  // paths down that are due.
  void check();
  void on_probe(Peer& peer, const Header& header, std::size_t rail);
  void on_probe_reply(Peer& peer, const Header& header);

  // Takes path `index` to `peer` out of service; `reason` goes to the log.
  void path_down(Peer& peer, std::size_t index, std::string_view reason);
  // The same, from the endpoint's user (Endpoint::take_path_down).
  [[nodiscard]] Status take_down(PeerId id, std::size_t path, std::string_view reason);
  // A message to the peer over `rail` could not be sent: with failover its
  // path goes down, else the peer's stream is broken and it fails.
  void lost_message(PeerId peer, std::size_t rail, const Status& status);
  // Whether failover carries what went wrong on `rail` to the peer: its
  // path there is down and the messages it held go again over the others.
  [[nodiscard]] bool covered_by_failover(PeerId peer, std::size_t rail) const noexcept;
  // A deferred post of `rail` to `address` failed (Rail::on_post_failure).
  void on_post_failure(std::size_t rail, rail::RailPeer address, const Status& status);

  // Closing: whether a peer still holds messages it has not acknowledged,
  // and asking each such path for its acknowledgement (a probe).
  [[nodiscard]] bool unacknowledged() const noexcept;
  void probe_unacknowledged();

 private:
  // Notes a sign of life on any path of `peer` (or that it owes nothing);
  // returns true when a peer taken as paused answers again, its paths
  // judged afresh from now.
  bool heard_from(Peer& peer, std::chrono::steady_clock::time_point now, bool fresh_start,
                  bool awaited);
  // Every path of `peer` has been silent past the rail timeout with work
  // pending: it is paused, or past the peer timeout, failed.
  void silent_peer(Peer& peer, std::chrono::steady_clock::time_point now);
  void send_probe(Peer& peer, std::size_t index);
  // A path down answered a probe: back in service, in a new epoch.
  void path_up(Peer& peer, std::size_t index);
  // The paths every policy now sends over, and the striping plan over them.
  static void set_live_paths(Core& core, Peer& peer, std::vector<std::size_t> up);

  Core& core_;
  std::chrono::steady_clock::time_point next_check_{};
  std::uint64_t probe_nonce_ = 0;
};

}  // namespace railyard::mrail::detail
