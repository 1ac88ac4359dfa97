// A multi-rail operation in flight: a send, a receive, or an RMA transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "railyard/common/intrusive_list.h"
#include "railyard/common/status.h"
#include "railyard/transports/mrail/peer_id.h"

namespace railyard::mrail {

class Endpoint;
class MatchingEngine;
struct LargeTransfer;
struct Peer;

enum class RequestKind : std::uint8_t { kIdle, kSend, kRecv, kPut, kGet, kFlush };

// Owned by the caller, who keeps it alive and in place until done(). A
// finished request can be posted again.
class Request {
 public:
  Request();
  ~Request();
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  Request(Request&&) = delete;
  Request& operator=(Request&&) = delete;

  [[nodiscard]] bool done() const noexcept { return done_; }
  [[nodiscard]] bool in_flight() const noexcept { return kind_ != RequestKind::kIdle && !done_; }
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
  friend class Endpoint;
  friend class MatchingEngine;
  friend struct Peer;

  void start(RequestKind kind, PeerId peer, std::byte* buffer, std::uint64_t capacity);
  void fail(const Status& status);
  void finish();

  RequestKind kind_ = RequestKind::kIdle;
  bool done_ = false;
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
  ListHook match_hook_;                   // in a posted-receive queue
  ListHook queue_hook_;                   // in a peer's queue of sends waiting for the window
  ListHook active_hook_;                  // in its endpoint's list of unfinished requests
  std::unique_ptr<LargeTransfer> large_;  // rendezvous and RMA state
};

}  // namespace railyard::mrail
