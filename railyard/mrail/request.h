// A multi-rail operation in flight: a send, a receive, or an RMA transfer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "railyard/common/intrusive_list.h"
#include "railyard/common/status.h"
#include "railyard/mrail/peer_id.h"

namespace railyard::mrail {

class Endpoint;
class MatchingEngine;
struct Peer;
namespace detail {
struct LargeTransfer;
class ActiveRequests;
class Sender;
class Receiver;
class Rendezvous;
class TransferLanes;
class Rma;
class PeerTable;
}  // namespace detail

enum class RequestKind : std::uint8_t { kIdle, kSend, kRecv, kPut, kGet, kFlush };

// "send", "receive", "put", "get", "flush" or "idle", for messages.
[[nodiscard]] const char* to_string(RequestKind kind) noexcept;

// Owned by the caller, who keeps it in place until done(). A finished request
// can be posted again.
//
// Destroying a request in flight (on the thread that drives its endpoint) is
// safe, and ends the operation as follows:
// - a receive that has not matched is cancelled, and a send still waiting
//   for the peer's window is withdrawn: neither reached the wire;
// - anything else has: the destructor progresses the endpoint until the
//   operation completes, up to Options::post_timeout;
// - past that, the request is detached. A send or receive leaves the peer's
//   message stream broken, so the peer fails (kUnreachable) and every other
//   request to or from it ends; an RMA transfer does not. Registrations and
//   provider operations the request held stay alive until the provider
//   completes them (EndpointCounters::orphaned_transfers), and a detached
//   rendezvous send revokes its buffer's registration so the peer cannot
//   read it any more. Memory a detached receive or get names may still be
//   written until then: keep it, or close the endpoint first.
class Request {
 public:
  Request();
  // See above; never throws.
  ~Request();
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  Request(Request&&) = delete;
  Request& operator=(Request&&) = delete;

  // May turn true while the owner is not calling in (the endpoint's
  // background progress); the results below are complete once it has.
  [[nodiscard]] bool done() const noexcept { return done_.load(std::memory_order_acquire); }
  [[nodiscard]] bool in_flight() const noexcept { return kind_ != RequestKind::kIdle && !done(); }
  [[nodiscard]] RequestKind kind() const noexcept { return kind_; }
  [[nodiscard]] const Status& status() const noexcept { return status_; }
  // Receives: the peer whose message matched. Others: the target peer.
  [[nodiscard]] PeerId peer() const noexcept { return peer_; }
  // Receives: the matched message's tag.
  [[nodiscard]] std::uint64_t tag() const noexcept { return tag_; }
  // Bytes placed in the receive buffer, or moved by a send or RMA transfer.
  [[nodiscard]] std::uint64_t length() const noexcept { return length_; }
  // Receives: the size of the message as sent; larger than length() when the
  // receive was truncated.
  [[nodiscard]] std::uint64_t message_length() const noexcept { return message_length_; }

 private:
  // The multi-rail endpoint and its parts (detail/endpoint_core.h).
  friend class Endpoint;
  friend class MatchingEngine;
  friend struct Peer;
  friend class detail::ActiveRequests;
  friend class detail::Sender;
  friend class detail::Receiver;
  friend class detail::Rendezvous;
  friend class detail::TransferLanes;
  friend class detail::Rma;
  friend class detail::PeerTable;

  void start(RequestKind kind, PeerId peer, std::byte* buffer, std::uint64_t capacity);
  void fail(const Status& status);
  void finish();

  RequestKind kind_ = RequestKind::kIdle;
  std::atomic<bool> done_{false};
  Endpoint* endpoint_ = nullptr;  // the endpoint it was last started on
  bool tagged_ = false;
  Status status_;
  PeerId peer_;
  std::uint64_t tag_ = 0;
  std::uint64_t ignore_ = 0;
  std::byte* buffer_ = nullptr;
  std::uint64_t capacity_ = 0;
  std::uint64_t length_ = 0;
  std::uint64_t message_length_ = 0;
  // Pieces (fragments, reads, RMA chunks) still outstanding.
  std::uint32_t pending_ = 0;
  ListHook match_hook_;   // in a posted-receive queue
  ListHook queue_hook_;   // in a peer's queue of sends waiting for the window
  ListHook active_hook_;  // in its endpoint's list of unfinished requests
  std::unique_ptr<detail::LargeTransfer> large_;  // rendezvous and RMA state
};

}  // namespace railyard::mrail
