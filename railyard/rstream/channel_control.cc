// Control traffic: credits, shutdown, iomap announcements and keepalive
// probes.
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {

bool ChannelCore::send_control(ControlMessage message, bool confirm) {
  if (!peer_receives_.can_take_control()) {
    return false;
  }
  message.returned_receives = static_cast<std::uint16_t>(
      std::min<std::size_t>(unreturned_receives_, std::numeric_limits<std::uint16_t>::max()));
  message.freed_bytes = static_cast<std::uint32_t>(
      std::min<std::size_t>(freed_bytes_, std::numeric_limits<std::uint32_t>::max()));
  std::array<std::byte, kControlMaxSize> bytes{};
  const std::size_t length = encode_control(message, bytes.data());
  ssize_t rc = 0;
  if (control_inject_ && !confirm) {
    rc = fi_inject(endpoint_.get(), bytes.data(), length, FI_ADDR_UNSPEC);
  } else {
    if (free_control_buffers_.empty()) {
      return false;
    }
    SendOp* op = acquire_op(SendKind::kControl);
    if (op == nullptr) {
      return false;
    }
    op->control_buffer = free_control_buffers_.back();
    std::byte* buffer = control_buffer(op->control_buffer);
    std::memcpy(buffer, bytes.data(), length);
    iovec iov{buffer, length};
    void* descriptor = region_.descriptor();
    fi_msg msg{};
    msg.msg_iov = &iov;
    msg.desc = &descriptor;
    msg.iov_count = 1;
    msg.context = &op->context;
    // A confirmed message completes only once the peer has it (and, the
    // stream being ordered, everything sent before it).
    const std::uint64_t flags =
        FI_COMPLETION | (confirm && delivery_complete_ ? FI_DELIVERY_COMPLETE : 0);
    rc = fi_sendmsg(endpoint_.get(), &msg, flags);
    if (rc == -FI_EBADFLAGS && (flags & FI_DELIVERY_COMPLETE) != 0) {
      delivery_complete_ = false;
      rc = fi_sendmsg(endpoint_.get(), &msg, FI_COMPLETION);
    }
    if (rc < 0) {
      release_last_op();
    } else {
      free_control_buffers_.pop_back();
    }
  }
  if (rc == -FI_EAGAIN) {
    return false;
  }
  if (rc < 0) {
    fail_post(fmt::format("sending a {} message", to_string(message.type)), rc);
    return false;
  }
  (void)peer_receives_.take_control();
  unreturned_receives_ -= message.returned_receives;
  freed_bytes_ -= message.freed_bytes;
  ++counters_.control_sent;
  return true;
}

void ChannelCore::announce_if_due() {
  if (!connected_ || disconnected_ || closed_ || !error_.ok()) {
    return;
  }
  if (shutdown_pending_ &&
      send_control(control_message(ControlType::kShutdown), /*confirm=*/true)) {
    shutdown_pending_ = false;
  }
  grow_receive_ring_if_due();
  // Half a queue or half a ring: the peer keeps writing while this message
  // travels, and an announcement costs one of its receives.
  if (unreturned_receives_ * 2 >= receive_slots_.size() ||
      freed_bytes_ * 2 >= receive_ring_->size()) {
    (void)send_control(control_message(ControlType::kCredit));
  }
}

Clock::time_point ChannelCore::next_keepalive_check() const noexcept {
  if (probe_sent_) {
    return *probe_sent_ + options_.keepalive;
  }
  return last_heard_ + options_.keepalive / 3;
}

void ChannelCore::keepalive(Clock::time_point now) {
  if (!connected_ || disconnected_ || closed_ || !error_.ok()) {
    return;
  }
  if (probe_sent_) {
    if (now - *probe_sent_ >= options_.keepalive) {
      fail(Status(StatusCode::kUnreachable,
                  fmt::format("rstream peer {} did not answer a keepalive probe within {} s: its "
                              "process or host stopped responding (RAILYARD_RSTREAM_KEEPALIVE)",
                              peer_name_, options_.keepalive.count())));
    }
    return;
  }
  if (now - last_heard_ < options_.keepalive / 3) {
    return;
  }
  // An 8-byte write into the word after the peer's ring: it consumes no
  // receive at the peer, and completes only once the peer has it.
  SendOp* op = acquire_op(SendKind::kProbe);
  if (op == nullptr) {
    return;
  }
  iovec iov{probe_source(), kProbeSize};
  void* descriptor = region_.descriptor();
  fi_rma_iov target{peer_.ring_address + peer_.ring_size, kProbeSize, peer_.ring_key};
  fi_msg_rma message{};
  message.msg_iov = &iov;
  message.desc = &descriptor;
  message.iov_count = 1;
  message.rma_iov = &target;
  message.rma_iov_count = 1;
  message.context = &op->context;
  ssize_t rc = fi_writemsg(endpoint_.get(), &message,
                           FI_COMPLETION | (delivery_complete_ ? FI_DELIVERY_COMPLETE : 0));
  if (rc == -FI_EBADFLAGS && delivery_complete_) {
    // The provider completes writes only once delivered anyway (verbs RC).
    delivery_complete_ = false;
    rc = fi_writemsg(endpoint_.get(), &message, FI_COMPLETION);
  }
  if (rc < 0) {
    release_last_op();
    if (rc != -FI_EAGAIN) {
      fail_post("posting a keepalive probe", rc);
    }
    return;
  }
  probe_sent_ = now;
  ++counters_.keepalive_probes;
}

Status ChannelCore::shutdown(ShutdownHow how) {
  if (closed_) {
    return {StatusCode::kInvalidArgument,
            fmt::format("shutdown of a closed rstream channel to {}", peer_name_)};
  }
  progress();
  if (how != ShutdownHow::kWrite && !read_shut_) {
    read_shut_ = true;
    // What was received and not read is dropped, and its room returned.
    for (RegisteredRing* ring : {draining_ring_.get(), receive_ring_.get()}) {
      if (ring != nullptr) {
        freed_bytes_ += ring->space().used();
        (void)ring->space().give_back(ring->space().used());
      }
    }
    release_drained_ring();
    announce_if_due();
  }
  if (how != ShutdownHow::kRead) {
    if (!write_shut_) {
      write_shut_ = true;
      shutdown_pending_ = connected_ && !disconnected_ && error_.ok();
      announce_if_due();
    }
    const auto deadline = Clock::now() + options_.shutdown_timeout;
    const bool left = wait_until(
        [this] { return (!shutdown_pending_ && ops_used_ == 0) || disconnected_; }, deadline);
    if (!error_.ok()) {
      return error_;
    }
    if (!left) {
      return {StatusCode::kTimedOut,
              fmt::format("shutdown of rstream channel to {}: the peer did not take the end of "
                          "the stream within {} ms ({} bytes still queued; is its process "
                          "stopped or not calling into railyard?)",
                          peer_name_, options_.shutdown_timeout.count(),
                          send_ring_->space().used() +
                              (old_send_ring_ ? old_send_ring_->space().used() : 0))};
    }
  }
  if (how == ShutdownHow::kBoth && !disconnected_) {
    disconnected_ = true;
    endpoint_.shutdown();
  }
  update_signal();
  return {};
}

Status ChannelCore::map(void* buffer, std::size_t length, std::uint64_t offset) {
  if (options_.iomap_size == 0) {
    return {
        StatusCode::kInvalidArgument,
        fmt::format("iomap on rstream channel to {} is disabled: set ChannelOptions::iomap_size "
                    "or RAILYARD_RSTREAM_IOMAP_SIZE to the number of mappings wanted",
                    peer_name_)};
  }
  if (buffer == nullptr || length == 0) {
    return {StatusCode::kInvalidArgument,
            fmt::format("iomap on rstream channel to {}: empty buffer ({} bytes at {})", peer_name_,
                        length, buffer)};
  }
  std::optional<std::size_t> free_slot;
  for (std::size_t slot = 0; slot < local_maps_.size(); ++slot) {
    const auto& mapping = local_maps_[slot];
    if (!mapping) {
      free_slot = free_slot ? free_slot : slot;
      continue;
    }
    if (offset < mapping->offset + mapping->length && mapping->offset < offset + length) {
      return {StatusCode::kInvalidArgument,
              fmt::format("iomap on rstream channel to {}: [{}, {}) overlaps the mapping at "
                          "[{}, {})",
                          peer_name_, offset, offset + length, mapping->offset,
                          mapping->offset + mapping->length)};
    }
  }
  if (!free_slot) {
    return {StatusCode::kInvalidArgument,
            fmt::format("iomap on rstream channel to {}: all {} mappings (iomap_size) are in use",
                        peer_name_, local_maps_.size())};
  }
  if (!connected_ || disconnected_ || !error_.ok()) {
    return error_.ok()
               ? Status(StatusCode::kUnreachable,
                        fmt::format("iomap: rstream channel to {} is not connected", peer_name_))
               : error_;
  }
  LocalMapping mapping;
  mapping.offset = offset;
  mapping.length = length;
  try {
    mapping.region = fabric::MemoryRegion(fabric_->domain(), buffer, length, FI_REMOTE_WRITE,
                                          fabric_->next_key());
    if (limits().mr_endpoint()) {
      mapping.region.bind_and_enable(endpoint_);
    }
  } catch (const Error& e) {
    return {StatusCode::kIoError, fmt::format("iomap on rstream channel to {}: registering {} "
                                              "bytes: {}",
                                              peer_name_, length, e.what())};
  }
  ControlMessage message = control_message(ControlType::kIomapAdd);
  message.iomap.slot = static_cast<std::uint32_t>(*free_slot);
  message.iomap.offset = offset;
  message.iomap.length = length;
  message.iomap.address = limits().mr_virt_addr() ? reinterpret_cast<std::uint64_t>(buffer) : 0;
  message.iomap.key = mapping.region.key();
  local_maps_[*free_slot] = std::move(mapping);
  // The announcement must go out now: the peer learns of the mapping from it.
  const bool sent =
      wait_until([&] { return send_control(message); }, Clock::now() + options_.shutdown_timeout);
  if (!sent) {
    local_maps_[*free_slot].reset();
    return error_.ok() ? Status(StatusCode::kTimedOut,
                                fmt::format("iomap on rstream channel to {}: no credit to "
                                            "announce the mapping within {} ms",
                                            peer_name_, options_.shutdown_timeout.count()))
                       : error_;
  }
  return {};
}

Status ChannelCore::unmap(std::uint64_t offset) {
  for (std::size_t slot = 0; slot < local_maps_.size(); ++slot) {
    auto& mapping = local_maps_[slot];
    if (!mapping || mapping->offset != offset) {
      continue;
    }
    ControlMessage message = control_message(ControlType::kIomapRemove);
    message.iomap.slot = static_cast<std::uint32_t>(slot);
    Status status;
    if (connected_ && !disconnected_ && error_.ok()) {
      const bool sent = wait_until([&] { return send_control(message); },
                                   Clock::now() + options_.shutdown_timeout);
      if (!sent && error_.ok()) {
        status = Status(StatusCode::kTimedOut,
                        fmt::format("iomap on rstream channel to {}: no credit to withdraw the "
                                    "mapping at offset {}",
                                    peer_name_, offset));
      }
    }
    mapping.reset();
    return status;
  }
  return {StatusCode::kInvalidArgument,
          fmt::format("iomap on rstream channel to {}: no mapping starts at offset {}", peer_name_,
                      offset)};
}

}  // namespace railyard::rstream::detail
