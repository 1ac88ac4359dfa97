// The send side of a multi-rail endpoint: a message goes eagerly, cut into
// fragments over the paths its size's policy picks, or as a rendezvous
// request (Rendezvous); every message, the endpoint's own included, is
// copied into a send buffer of its rail (or injected) behind its header,
// which carries the peer's credit grant and an acknowledgement owed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/rail_set.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/mrail/request.h"
#include "railyard/mrail/stripe_plan.h"

namespace railyard::mrail::detail {

struct Core;

class Sender {
 public:
  explicit Sender(Core& core) noexcept : core_(core) {}

  // A send of `size` bytes at `data` to `peer`; tagged or not.
  [[nodiscard]] Status start(Request& request, PeerId peer, const void* data, std::size_t size,
                             std::uint64_t tag, bool tagged);
  // The peer's window opened: its sends waiting for it go, in order.
  void release_waiting(Peer& peer);

  // A message of the endpoint's own (credit, acknowledgement, probe, FIN,
  // rail reset notice) to `peer`, on its home path or on path `path`.
  void send_control(Peer& peer, const Header& header);
  void send_control(Peer& peer, const Header& header, std::size_t path,
                    std::vector<std::byte> body = {});
  // Queues `message` on `rail` and sends what its send buffers allow.
  void enqueue(std::size_t rail, Outgoing message);
  // Sends what waits on `rail`, in order, while send buffers are free.
  void pump(std::size_t rail);
  // A send buffer's message completed.
  void on_sent(TxSlot& slot, const rail::Completion& completion);

  // The peer failed: its messages still queued, and the rails' deferred
  // posts to it, go; returns the requests that had messages among them.
  [[nodiscard]] std::vector<Request*> drop_queued(Peer& peer);
  // The peer failed: sends still waiting for its window fail.
  void fail_waiting(Peer& peer);
  // A send waiting for the window, destroyed: withdrawn.
  void withdraw(Request& request);

 private:
  void transmit(Peer& peer, Request& request);
  void send_eager(Peer& peer, Request& request, const Header& header);
  // Copies one message into a free send buffer of `rail` (there must be
  // one) behind its header, with the grant to `peer` filled in, and hands
  // it to the rail.
  void emit(std::size_t rail, Header& header, rail::RailPeer destination, PeerId peer,
            const std::byte* payload, std::size_t length, Request* owner);

  Core& core_;
  std::vector<StripePiece> pieces_;  // scratch for send_eager
};

}  // namespace railyard::mrail::detail
