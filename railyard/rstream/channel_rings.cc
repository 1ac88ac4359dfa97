// A channel's rings, and how they grow while a stream runs.
//
// Small rings keep an idle or control-only channel cheap, but they cap a
// bulk stream at about one ring per credit round trip, with every write a
// fixed cost in the provider. So, as TCP grows its socket buffers, a ring
// grows when its writer keeps waiting for room in it: the writer flags its
// next write (kWriteStalledBit), and after kGrowAfterStalls such writes the
// reader registers a ring kRingGrowthFactor times larger and offers it in a
// kRingGrow control message. The writer sends every later write there, with
// the other parity bit; the reader reads the old ring to its end first (the
// writes are ordered) and frees it once a write of the new parity shows no
// more will come. Credits count freed bytes in stream order, so the writer
// credits its writes into the old ring first. The writer's own send ring
// grows with the peer's ring, or after it waited for its own room.
#include <rdma/fi_domain.h>

#include <fmt/format.h>

#include <algorithm>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {

std::unique_ptr<RegisteredRing> ChannelCore::make_ring(std::size_t size, std::size_t trailer,
                                                       std::uint64_t access) {
  auto ring = std::make_unique<RegisteredRing>(size, trailer);
  ring->region() = fabric::MemoryRegion(fabric_->domain(), ring->data(), ring->registered_size(),
                                        access, fabric_->next_key());
  if (limits().mr_endpoint()) {
    ring->region().bind_and_enable(endpoint_);
  }
  return ring;
}

std::uint64_t ChannelCore::ring_address(const RegisteredRing& ring) const noexcept {
  // Offset-addressed providers count from the registration's start.
  return limits().mr_virt_addr() ? reinterpret_cast<std::uint64_t>(ring.data()) : 0;
}

std::uint64_t ChannelCore::ring_write_data(std::size_t length) const noexcept {
  return static_cast<std::uint64_t>(length) | (write_parity_ ? kWriteParityBit : 0U) |
         (peer_ring_stall_ ? kWriteStalledBit : 0U);
}

void ChannelCore::update_piece_limit() {
  // A quarter of the smaller ring: the peer reads the first pieces and
  // returns their room while the later ones travel, so a stream never stops
  // to wait for a whole ring's credit.
  piece_limit_ = std::clamp<std::size_t>(
      std::min<std::size_t>(remote_ring_.size(), send_ring_->size()) / kPiecesPerRing, kMinPiece,
      kMaxPiece);
}

void ChannelCore::note_write_stall() {
  if (remote_ring_.contiguous_free() == 0) {
    peer_ring_stall_ = true;
  }
  if (send_ring_->space().contiguous_free() == 0 && !old_send_ring_ &&
      ++send_ring_stalls_ >= kGrowAfterStalls) {
    wanted_send_ring_ = std::max(wanted_send_ring_, send_ring_->size() * kRingGrowthFactor);
  }
}

RegisteredRing* ChannelCore::ring_written(std::uint64_t immediate) {
  const bool parity = (immediate & kWriteParityBit) != 0;
  if ((immediate & kWriteReservedBit) == 0) {
    if (parity == receive_parity_) {
      // The first write into the new ring: none will follow into the old one.
      draining_open_ = false;
      return receive_ring_.get();
    }
    if (draining_ring_ && draining_open_) {
      return draining_ring_.get();
    }
  }
  fail(Status(StatusCode::kIoError,
              fmt::format("rstream protocol error: peer {} wrote with immediate data {:#x}, "
                          "which names no receive ring it was offered",
                          peer_name_, immediate)));
  return nullptr;
}

void ChannelCore::grow_receive_ring_if_due() {
  const std::size_t limit = std::max(options_.receive_buffer_max, options_.receive_buffer_size);
  if (stall_hints_ < kGrowAfterStalls || draining_ring_ || ring_growth_failed_ ||
      receive_ring_->size() >= limit || read_shut_ || !peer_receives_.can_take_control()) {
    return;
  }
  const std::size_t size = std::min(receive_ring_->size() * kRingGrowthFactor, limit);
  std::unique_ptr<RegisteredRing> ring;
  try {
    ring = make_ring(size, kProbeSize, FI_REMOTE_WRITE);
  } catch (const Error& e) {
    // The stream goes on in the ring it has.
    ring_growth_failed_ = true;
    log::warn("rstream channel to {}: cannot grow the receive ring to {} bytes: {}", peer_name_,
              size, e.what());
    return;
  }
  ControlMessage message = control_message(ControlType::kRingGrow);
  message.ring.size = static_cast<std::uint32_t>(size);
  message.ring.address = ring_address(*ring);
  message.ring.key = ring->region().key();
  if (!send_control(message)) {
    return;  // tried again at the next announcement
  }
  log::debug("rstream channel to {}: receive ring grows from {} to {} bytes", peer_name_,
             receive_ring_->size(), size);
  draining_ring_ = std::move(receive_ring_);
  draining_open_ = true;
  receive_ring_ = std::move(ring);
  receive_parity_ = !receive_parity_;
  stall_hints_ = 0;
  ++counters_.ring_growths;
  release_drained_ring();
}

void ChannelCore::release_drained_ring() {
  if (draining_ring_ && !draining_open_ && draining_ring_->space().used() == 0) {
    draining_ring_.reset();
  }
}

void ChannelCore::on_ring_grant(const RingGrant& grant) {
  old_remote_bytes_ += remote_ring_.used();
  remote_ring_ = RingSpace(grant.size);
  peer_.ring_size = grant.size;
  peer_.ring_address = grant.address;
  peer_.ring_key = grant.key;
  write_parity_ = !write_parity_;
  peer_ring_stall_ = false;
  const std::size_t limit = std::max(options_.send_buffer_max, options_.send_buffer_size);
  wanted_send_ring_ = std::max(wanted_send_ring_, std::min<std::size_t>(grant.size, limit));
  log::debug("rstream channel to {}: the peer's receive ring is now {} bytes", peer_name_,
             grant.size);
  update_piece_limit();
}

void ChannelCore::grow_send_ring_if_due() {
  const std::size_t limit = std::max(options_.send_buffer_max, options_.send_buffer_size);
  const std::size_t size = std::min(wanted_send_ring_, limit);
  if (size <= send_ring_->size() || old_send_ring_ || ring_growth_failed_) {
    return;
  }
  std::unique_ptr<RegisteredRing> ring;
  try {
    ring = make_ring(size, 0, FI_WRITE);
  } catch (const Error& e) {
    ring_growth_failed_ = true;
    log::warn("rstream channel to {}: cannot grow the send ring to {} bytes: {}", peer_name_, size,
              e.what());
    return;
  }
  log::debug("rstream channel to {}: send ring grows from {} to {} bytes", peer_name_,
             send_ring_->size(), size);
  if (send_ring_->space().used() > 0) {
    old_send_ring_ = std::move(send_ring_);
  }
  send_ring_ = std::move(ring);
  ++send_ring_generation_;
  send_ring_stalls_ = 0;
  update_piece_limit();
}

void ChannelCore::release_staged(const SendOp& op) {
  if (op.staged == 0) {
    return;
  }
  if (op.send_ring == send_ring_generation_) {
    (void)send_ring_->space().give_back(op.staged);
    return;
  }
  // Staged in the ring that was replaced; it goes once it holds nothing.
  if (old_send_ring_) {
    (void)old_send_ring_->space().give_back(op.staged);
    if (old_send_ring_->space().used() == 0) {
      old_send_ring_.reset();
    }
  }
}

bool ChannelCore::take_ring_credit(std::size_t freed) {
  const std::size_t from_old = std::min(freed, old_remote_bytes_);
  old_remote_bytes_ -= from_old;
  return remote_ring_.give_back(freed - from_old);
}

}  // namespace railyard::rstream::detail
