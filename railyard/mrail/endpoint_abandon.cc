// Requests destroyed while in flight: ending them so that neither the
// endpoint nor the provider is left holding a pointer to them (see Request).
#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/mrail/detail/endpoint_internal.h"
#include "railyard/mrail/detail/matching_engine.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {
void Endpoint::abandon(Request& request) noexcept {
  const Lock lock(mutex_);
  if (request.done()) {
    return;  // finished by the background thread meanwhile
  }
  ++totals_.abandoned_requests;
  // What never reached the wire goes quietly.
  if (request.match_hook_.linked()) {
    (void)engine(request.tagged_).cancel(request);
    finish(request);
    return;
  }
  if (request.queue_hook_.linked()) {
    peer_of(request.peer_)->waiting.erase(request);
    finish(request);
    return;
  }
  try {
    (void)progress_until([&] { return request.done(); }, options_.post_timeout);
  } catch (const std::exception& e) {
    log::error("multi-rail endpoint {:016x}: progressing a request destroyed in flight: {}", id_,
               e.what());
  }
  if (!request.done()) {
    detach(request);
  }
}

void Endpoint::detach(Request& request) noexcept {
  const char* kind = to_string(request.kind_);
  log::warn(
      "multi-rail endpoint {:016x}: a {} request (peer {}, {} bytes) was destroyed in flight and "
      "did not complete within the post timeout ({} ms): detached",
      id_, kind, request.peer_.index, request.capacity_, options_.post_timeout.count());
  if (request.kind_ == RequestKind::kSend && request.large_) {
    // The peer may still read the buffer, which may be freed: stop it.
    for (auto& lease : request.large_->leases) {
      lease.revoke();
    }
  }
  if (request.kind_ == RequestKind::kSend || request.kind_ == RequestKind::kRecv) {
    // A message half sent or half received breaks the peer's stream: the
    // receiver waits for it, or the sender for its FIN.
    if (Peer* peer = peer_of(request.peer_); peer != nullptr) {
      fail_peer(*peer, Status(StatusCode::kUnreachable,
                              fmt::format("a {} request was destroyed in flight and did "
                                          "not complete within {} ms",
                                          kind, options_.post_timeout.count())));
    }
    if (request.done()) {
      return;
    }
  }
  // Send buffers the provider still holds forget it. (Failing the peer
  // removed its queued fragments and its wait for a FIN; RMA has neither.)
  for (auto& state : rails_) {
    for (auto& slot : state->send_slots) {
      if (slot->owner == &request) {
        slot->owner = nullptr;
      }
    }
  }
  if (request.large_) {
    drop_unposted(request);  // a pull's chunks still waiting for their path
    // Operations the provider has not completed keep their memory (the op,
    // and the registrations it reads or writes through) until it has.
    std::size_t outstanding = 0;
    for (auto& op : request.large_->ops) {
      auto& piece = static_cast<PieceOp&>(*op);
      if (!piece.completed()) {
        piece.detach();
        ++outstanding;
      }
    }
    if (outstanding != 0) {
      request.large_->outstanding = outstanding;
      orphans_.push_back(std::move(request.large_));
    }
  }
  request.fail(Status(StatusCode::kCanceled, "the request was destroyed in flight"));
  finish(request);
}

void Endpoint::on_orphan_piece(PieceOp& op) noexcept {
  for (auto it = orphans_.begin(); it != orphans_.end(); ++it) {
    LargeTransfer& transfer = **it;
    const bool holds = std::any_of(transfer.ops.begin(), transfer.ops.end(),
                                   [&](const auto& owned) { return owned.get() == &op; });
    if (holds) {
      if (--transfer.outstanding == 0) {
        orphans_.erase(it);  // destroys `op`
      }
      return;
    }
  }
}

}  // namespace railyard::mrail
