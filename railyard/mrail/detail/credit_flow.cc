#include "railyard/mrail/detail/credit_flow.h"

#include <utility>

#include "railyard/common/detail/log.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {

void CreditFlow::reopen(Peer& peer) {
  // Messages nobody asked for yet are over budget: the sender waits (once
  // the window it already has is used) until receives take some of them.
  if (over_budget(peer)) {
    if (!peer.credit_held) {
      peer.credit_held = true;
      ++held_credits_;
      ++core_.totals.credit_holds;
      if (!std::exchange(peer.credit_hold_logged, true)) {
        log::info(
            "multi-rail endpoint {:016x}: holding back peer {}'s credits: unexpected messages "
            "hold {} bytes from it (budget {}) and {} in all (budget {}); it waits until "
            "receives take them (logged once per peer)",
            core_.id, peer.id.index, peer.unexpected_bytes, core_.options.unexpected_peer_bytes,
            unexpected_bytes_, core_.options.unexpected_bytes);
      }
    }
    return;
  }
  // Granted now, so the messages that arrive before it leaves ask for no
  // second one; the sender writes the newest grant into it.
  (void)grant(peer);
  ++core_.totals.credit_messages;
  Header credit;
  credit.type = MessageType::kCredit;
  credit.source = core_.id;
  core_.sender.send_control(peer, credit);
}

bool CreditFlow::over_budget(const Peer& peer) const noexcept {
  if (peer.unexpected_bytes > core_.options.unexpected_peer_bytes) {
    return true;
  }
  // Past the total, a peer that a posted receive names is still granted:
  // its next messages have a receive waiting, and holding it back because
  // other peers' messages fill the memory would leave that receive waiting
  // for ever. Its own budget still bounds what it can add.
  return unexpected_bytes_ > core_.options.unexpected_bytes && !core_.receiver.awaited(peer);
}

std::uint32_t CreditFlow::grant(Peer& peer) noexcept {
  if (!over_budget(peer)) {
    if (peer.credit_held) {
      peer.credit_held = false;
      --held_credits_;
    }
    peer.credited = peer.early.next();
  }
  return peer.credited;
}

void CreditFlow::release() {
  if (held_credits_ == 0) {
    return;
  }
  for (const auto& peer : core_.peers.all()) {
    if (!peer->credit_held) {
      continue;
    }
    if (peer->failed) {
      peer->credit_held = false;
      --held_credits_;
    } else {
      credit(*peer);
    }
  }
}

}  // namespace railyard::mrail::detail
