// Flow control between a receiver and each peer: the window of messages a
// peer may send ahead, reopened by the grants every message back carries
// (or a credit message when none goes back), and held back while messages
// nobody asked for yet fill the memory they may take
// (docs/wire-formats.md, "Credits").
#pragma once

#include <cstddef>
#include <cstdint>

#include "railyard/mrail/detail/inbound_message.h"
#include "railyard/mrail/detail/peer.h"

namespace railyard::mrail::detail {

struct Core;

class CreditFlow {
 public:
  explicit CreditFlow(Core& core) noexcept : core_(core) {}

  // Sends the peer a credit message when a quarter window has passed since
  // its last grant, unless unexpected messages are over budget.
  void credit(Peer& peer) {
    // Both sides use the smaller of their two windows (peer.window), so the
    // sender never waits for a credit the receiver would only send later.
    if (seq_distance(peer.credited, peer.early.next()) >= quarter_of(peer)) {
      reopen(peer);
    }
  }
  // The grant the next message to `peer` carries: the next sequence number
  // expected from it, or while unexpected messages are over budget the
  // last grant.
  [[nodiscard]] std::uint32_t grant(Peer& peer) noexcept;
  // Sends the credits held back, for peers no longer over budget.
  void release();

  // Unexpected messages entering and leaving the queue: their bytes count
  // against the budgets.
  void count_unexpected(Peer& peer, const InboundMessage& message) noexcept {
    peer.unexpected_bytes += message.held_bytes();
    unexpected_bytes_ += message.held_bytes();
  }
  void uncount_unexpected(Peer& peer, const InboundMessage& message) noexcept {
    peer.unexpected_bytes -= message.held_bytes();
    unexpected_bytes_ -= message.held_bytes();
  }
  [[nodiscard]] std::uint64_t unexpected_bytes() const noexcept { return unexpected_bytes_; }

 private:
  [[nodiscard]] static std::uint32_t quarter_of(const Peer& peer) noexcept {
    return peer.window / 4 > 0 ? peer.window / 4 : 1;
  }
  // A quarter window has passed: a credit message, or the hold.
  void reopen(Peer& peer);
  // Whether unexpected messages hold back `peer`'s credits: its own are over
  // their budget, or all are over the total and no posted receive names it.
  [[nodiscard]] bool over_budget(const Peer& peer) const noexcept;

  Core& core_;
  std::uint64_t unexpected_bytes_ = 0;  // every peer's Peer::unexpected_bytes
  std::size_t held_credits_ = 0;        // peers whose credit is held
};

}  // namespace railyard::mrail::detail
