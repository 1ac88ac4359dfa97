// The rendezvous protocol, for messages above the eager limit: the sender
// registers its buffer on its rails and sends a request-to-send (RTS)
// carrying the keys; once a receive matches it, the receiver reads the data
// straight into the receive buffer over its paths (TransferLanes), then
// sends a FIN that completes the send.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "railyard/mrail/detail/inbound_message.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/request.h"

namespace railyard::mrail::detail {

struct Core;

class Rendezvous {
 public:
  explicit Rendezvous(Core& core) noexcept : core_(core) {}

  // Sends `request`'s message (already numbered in `header`) as an RTS.
  void send(Peer& peer, Request& request, Header header);
  // The receiver of one of our sends read it (or gave up): the send is
  // done, and the bytes `body` says were read count as sent.
  void on_fin(Peer& peer, const Header& header, std::span<const std::byte> body, std::size_t rail);
  // A receive matched an RTS: its data is read over the peer's paths.
  void start_pull(Peer& peer, InboundMessage& message, Request& request);
  // A rendezvous request's transfer ended: a receive tells the sender (FIN),
  // a send forgets its transfer id.
  void transfer_done(Request& request);

  // By peer index: whether a send to the peer waits for its FIN.
  [[nodiscard]] std::vector<bool> peers_awaited(std::size_t peers) const;
  // The peer failed: sends waiting for its FIN end.
  void fail_sends_to(const Peer& peer);

 private:
  void count_reads(const Peer& peer, std::span<const std::byte> body);

  Core& core_;
  // Rendezvous sends waiting for their FIN, by transfer id.
  std::unordered_map<std::uint64_t, Request*> sends_;
  std::uint64_t next_transfer_id_ = 1;
};

}  // namespace railyard::mrail::detail
