// The peers of a multi-rail endpoint: inserting one pairs our rails with
// its rails into paths; messages from an endpoint not inserted yet wait
// here for it; and a peer that fails has everything to or from it ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"

namespace railyard::mrail::detail {

struct Core;

class PeerTable {
 public:
  explicit PeerTable(Core& core) noexcept : core_(core) {}

  // Makes the endpoint at `blob` a peer (its existing id when it is one),
  // and hands it the messages it sent before. Throws Error when the blob
  // is malformed or no rail of ours shares a network with its rails.
  PeerId insert(std::span<const std::byte> blob);

  [[nodiscard]] Peer* find(PeerId id) const noexcept {
    return id.index < peers_.size() ? peers_[id.index].get() : nullptr;
  }
  // Why `id` cannot take an operation named `what` (never inserted, or
  // failed); ok when it can.
  [[nodiscard]] Status check(PeerId id, const char* what) const;
  [[nodiscard]] const std::vector<std::unique_ptr<Peer>>& all() const noexcept { return peers_; }

  // The inserted peer that sent `header`, or nullptr: then the message is
  // kept for when its sender is inserted, or dropped past the budget.
  [[nodiscard]] Peer* source_of(std::size_t rail, const Header& header,
                                std::span<const std::byte> message) {
    if (last_source_ != nullptr && last_source_->endpoint_id == header.source) {
      return last_source_;  // peers are never removed: no lookup
    }
    return find_source(rail, header, message);
  }

  // Ends everything to or from `peer`: it is unreachable, for `status`.
  void fail(Peer& peer, const Status& status);
  // The status for wildcard receives when every inserted peer has failed;
  // nullptr while one is alive or none was inserted.
  [[nodiscard]] const Status* every_peer_failed() const noexcept;

 private:
  [[nodiscard]] Peer* find_source(std::size_t rail, const Header& header,
                                  std::span<const std::byte> message);
  // The path to a peer on this host over the host rail, if it has one there.
  [[nodiscard]] std::optional<Path> pair_host_rail(const EndpointAddress& remote);
  // Pairs each of our network rails with a peer rail on the same network
  // and provider; their weights in `weights`.
  [[nodiscard]] std::vector<Path> pair_network_rails(const EndpointAddress& remote,
                                                     std::vector<double>& weights);

  Core& core_;
  std::vector<std::unique_ptr<Peer>> peers_;
  std::unordered_map<std::uint64_t, PeerId> ids_;  // by endpoint id
  // The peer whose message arrived last, found again without hashing.
  Peer* last_source_ = nullptr;
  // Messages from endpoints not inserted yet, replayed by insert().
  std::unordered_map<std::uint64_t, std::vector<std::pair<std::size_t, std::vector<std::byte>>>>
      strangers_;
  std::uint64_t stranger_bytes_ = 0;
  Status last_failure_;  // see every_peer_failed()
};

}  // namespace railyard::mrail::detail
