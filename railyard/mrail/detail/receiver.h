// The receive side of a multi-rail endpoint: each peer's messages put back
// in order whatever rail they took (sequence numbers, a reorder buffer),
// matched against posted receives in that order (MatchingEngine, tagged and
// untagged apart), eager fragments copied into place, rendezvous requests
// handed to the rendezvous protocol.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "railyard/common/status.h"
#include "railyard/mrail/detail/inbound_message.h"
#include "railyard/mrail/detail/matching_engine.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/rail_set.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/mrail/request.h"

namespace railyard::mrail::detail {

struct Core;

class Receiver {
 public:
  explicit Receiver(Core& core) noexcept : core_(core) {}

  // A receive into `size` bytes at `data` of the oldest message from
  // `source` (or kAnySource) whose tag equals `tag` in every bit not set in
  // `ignore`.
  [[nodiscard]] Status start(Request& request, PeerId source, void* data, std::size_t size,
                             std::uint64_t tag, std::uint64_t ignore, bool tagged);
  // Ends a posted receive that has not matched (StatusCode::kCanceled).
  [[nodiscard]] Status cancel(Request& request);
  // A posted receive destroyed before it matched: withdrawn.
  void withdraw(Request& request);
  // The oldest tagged message matching (source, tag, ignore) whose turn
  // has come, without receiving it; nullptr when there is none.
  [[nodiscard]] const InboundMessage* peek(PeerId source, std::uint64_t tag,
                                           std::uint64_t ignore) const {
    return tagged_.peek_unexpected(source, tag, ignore);
  }

  // A receive buffer of the rail completed: a message arrived.
  void on_receive(RxSlot& slot, const rail::Completion& completion);
  // One message that arrived on `rail`, header first.
  void handle(std::size_t rail, std::span<const std::byte> message);

  // Whether a posted receive names `peer` as its source.
  [[nodiscard]] bool awaited(const Peer& peer) const noexcept {
    return tagged_.posted_from(peer.id) != nullptr || untagged_.posted_from(peer.id) != nullptr;
  }
  // The peer failed: receives naming it fail, and its messages that cannot
  // finish go (complete unexpected ones stay receivable).
  void fail_from(Peer& peer);
  // Fails posted kAnySource receives once no inserted peer is alive.
  void fail_orphaned_wildcards();

  // The status of a receive of `capacity` bytes that a message of
  // `message_length` truncated.
  [[nodiscard]] static Status truncated(std::uint64_t message_length, std::uint64_t capacity,
                                        PeerId source, std::uint64_t tag);

 private:
  [[nodiscard]] MatchingEngine& engine(bool tagged) noexcept {
    return tagged ? tagged_ : untagged_;
  }
  // Fails every posted receive that names `source` (kAnySource: wildcards).
  void fail_posted_from(PeerId source, const Status& status);
  // Tells the rail poller where the next message from `peer` most likely
  // arrives, from the rails its last ones arrived on (`rail` the latest).
  void expect_next_arrival(Peer& peer, std::size_t rail);
  [[nodiscard]] InboundMessage* locate(Peer& peer, const Header& header);
  void on_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                   std::size_t rail);
  // A fragment on_fragment could not hand straight to a waiting receive:
  // one of several, out of order, repeated, or not yet asked for. Kept out
  // of on_fragment so that the common case runs in a small function.
  void place_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                      std::size_t rail);
  void on_rts(Peer& peer, const Header& header, std::span<const std::byte> body);
  // The peer's messages whose turn has come, matched or queued unexpected.
  void advance(Peer& peer);
  void on_turn(Peer& peer, InboundMessage& message);
  void bind(Peer& peer, InboundMessage& message, Request& request);
  void try_finish(Peer& peer, InboundMessage& message);

  Core& core_;
  MatchingEngine tagged_;
  MatchingEngine untagged_;
  PeerId last_sender_;  // whose message arrived last (expect_next_arrival)
};

}  // namespace railyard::mrail::detail
