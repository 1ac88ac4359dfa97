// One operation posted to a rail and the completion it finishes with.
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>

#include "railyard/common/status.h"

namespace railyard::rail {

class Rail;

enum class OpKind : std::uint8_t { kSend, kRecv, kTaggedSend, kTaggedRecv, kWrite, kRead };

[[nodiscard]] const char* to_string(OpKind kind) noexcept;

struct Completion {
  OpKind kind = OpKind::kSend;
  Status status;
  // Bytes delivered into the receive buffer, or bytes sent / written / read.
  std::size_t length = 0;
  // The tag of the message that matched (tagged receives).
  std::uint64_t tag = 0;
  // Remote completion data, when has_data.
  std::uint64_t data = 0;
  bool has_data = false;
};

// Base of everything that can be posted to a rail. It carries libfabric's
// per-operation context, so it must stay at the same address from the post
// until on_complete() has run; in between, the rail owns it.
//
// Subclasses decide what a completion means: Request records it for a waiter,
// the multi-rail layer reposts receive buffers or advances a transfer.
class RailOp {
 public:
  RailOp() = default;
  virtual ~RailOp() = default;
  RailOp(const RailOp&) = delete;
  RailOp& operator=(const RailOp&) = delete;
  RailOp(RailOp&&) = delete;
  RailOp& operator=(RailOp&&) = delete;

  // True between a successful post and the call to on_complete().
  [[nodiscard]] bool in_flight() const noexcept { return in_flight_; }

 protected:
  // Runs exactly once per successful post, from Rail::progress() on the thread
  // that drives the rail. It may post again (this op or others) but must not
  // call progress() itself. It should not throw: if it does, the rail still
  // delivers the other completions it has read and rethrows afterwards.
  virtual void on_complete(const Completion& completion) = 0;

 private:
  friend class Rail;

  // Standard-layout so that a pointer to it is also a pointer to its first
  // member, the fi_context2 providers with FI_CONTEXT/FI_CONTEXT2 write into.
  struct Context {
    fi_context2 provider_context;
    RailOp* owner;
  };

  Context context_{{}, this};
  OpKind kind_ = OpKind::kSend;
  std::size_t posted_length_ = 0;
  bool in_flight_ = false;
  // Set by Rail::cancel(): a cancellation we did not ask for is the
  // provider's way (net's) of saying the connection to the peer is gone.
  bool cancel_requested_ = false;
  // The rail's list of operations in flight, which Rail::reset() ends.
  RailOp* previous_in_flight_ = nullptr;
  RailOp* next_in_flight_ = nullptr;
};

}  // namespace railyard::rail
