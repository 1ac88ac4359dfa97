// Moving stream bytes out: ring writes with immediate data, iomap writes,
// and retiring what the provider completed.
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "railyard/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {
SendOp* ChannelCore::acquire_op(SendKind kind) {
  const bool data = kind == SendKind::kRing || kind == SendKind::kIomap;
  if (data ? !send_slots_.take_data() : !send_slots_.take_control()) {
    return nullptr;
  }
  SendOp& op = ops_[ops_head_];
  op = SendOp{};
  op.kind = kind;
  ops_head_ = (ops_head_ + 1) % ops_.size();
  ++ops_used_;
  return &op;
}

void ChannelCore::release_last_op() {
  ops_head_ = (ops_head_ + ops_.size() - 1) % ops_.size();
  --ops_used_;
  (void)send_slots_.give_back(1);
}

void ChannelCore::retire_sends() {
  while (ops_used_ > 0 && ops_[ops_tail_].done) {
    SendOp& op = ops_[ops_tail_];
    release_staged(op);
    if (op.kind == SendKind::kControl) {
      free_control_buffers_.push_back(op.control_buffer);
    }
    (void)send_slots_.give_back(1);
    ops_tail_ = (ops_tail_ + 1) % ops_.size();
    --ops_used_;
  }
}

bool ChannelCore::can_write() const noexcept {
  return connected_ && peer_receives_.can_take_data() && remote_ring_.contiguous_free() > 0 &&
         send_slots_.can_take_data() && send_ring_->space().contiguous_free() > 0;
}

std::size_t ChannelCore::write_some(std::span<const std::byte> data) {
  grow_send_ring_if_due();
  std::size_t total = 0;
  while (total < data.size() && error_.ok() && peer_receives_.can_take_data()) {
    const auto rest = data.subspan(total);
    std::size_t length = std::min({rest.size(), remote_ring_.contiguous_free(), piece_limit_});
    if (length == 0) {
      break;
    }
    const std::uint64_t target = peer_.ring_address + remote_ring_.head();
    if (length == rest.size() && length <= inject_limit_) {
      // Small and last: straight from the caller's buffer, no completion.
      const ssize_t rc =
          fi_inject_writedata(endpoint_.get(), rest.data(), length, ring_write_data(length),
                              FI_ADDR_UNSPEC, target, peer_.ring_key);
      if (rc == -FI_EAGAIN) {
        break;
      }
      if (rc < 0) {
        fail_post("fi_inject_writedata", rc);
        break;
      }
      ++counters_.inline_writes;
    } else {
      RingSpace& space = send_ring_->space();
      length = std::min(length, space.contiguous_free());
      if (length == 0) {
        break;
      }
      SendOp* op = acquire_op(SendKind::kRing);
      if (op == nullptr) {
        break;
      }
      std::byte* staged = send_ring_->data() + space.head();
      std::memcpy(staged, rest.data(), length);
      const ssize_t rc = fi_writedata(endpoint_.get(), staged, length,
                                      send_ring_->region().descriptor(), ring_write_data(length),
                                      FI_ADDR_UNSPEC, target, peer_.ring_key, &op->context);
      if (rc < 0) {
        release_last_op();
        if (rc != -FI_EAGAIN) {
          fail_post("fi_writedata", rc);
        }
        break;
      }
      (void)space.take(length);
      op->staged = length;
      op->send_ring = send_ring_generation_;
    }
    peer_ring_stall_ = false;
    (void)remote_ring_.take(length);
    (void)peer_receives_.take_data();
    total += length;
    counters_.bytes_sent += length;
    ++counters_.writes;
  }
  return total;
}

IoResult ChannelCore::send(std::span<const std::byte> data, Blocking blocking) {
  if (closed_) {
    return IoResult::failed(
        Status(StatusCode::kInvalidArgument,
               fmt::format("send on a closed rstream channel to {}", peer_name_)));
  }
  if (write_shut_) {
    return IoResult::failed(
        Status(StatusCode::kInvalidArgument,
               fmt::format("send on rstream channel to {} after it was shut down for writing",
                           peer_name_)));
  }
  progress();
  std::size_t total = 0;
  while (true) {
    if (Status failure = write_failure(); !failure.ok()) {
      return IoResult::failed(std::move(failure), total);
    }
    total += write_some(data.subspan(total));
    if (total == data.size()) {
      want_write_ = false;
      update_signal();
      return IoResult::done(total);
    }
    ++counters_.credit_waits;
    note_write_stall();
    if (blocking == Blocking::kNonBlocking) {
      want_write_ = true;
      update_signal();
      return total > 0 ? IoResult::done(total) : IoResult::blocked();
    }
    wait_until([this] { return can_write() || disconnected_; }, Clock::time_point::max());
  }
}

const IomapEntry* ChannelCore::peer_mapping_at(std::uint64_t at) const noexcept {
  for (const auto& entry : peer_maps_) {
    if (entry && at >= entry->offset && at - entry->offset < entry->length) {
      return &*entry;
    }
  }
  return nullptr;
}

std::size_t ChannelCore::write_iomap(std::span<const std::byte> data, std::uint64_t offset) {
  std::size_t total = 0;
  while (total < data.size() && error_.ok()) {
    const std::uint64_t at = offset + total;
    const IomapEntry* mapping = peer_mapping_at(at);
    if (mapping == nullptr) {
      break;
    }
    const auto rest = data.subspan(total);
    const std::uint64_t in_mapping = mapping->length - (at - mapping->offset);
    const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(
        {rest.size(), in_mapping, piece_limit_, send_ring_->space().contiguous_free()}));
    if (length == 0) {
      break;
    }
    SendOp* op = acquire_op(SendKind::kIomap);
    if (op == nullptr) {
      break;
    }
    std::byte* staged = send_ring_->data() + send_ring_->space().head();
    std::memcpy(staged, rest.data(), length);
    const ssize_t rc =
        fi_write(endpoint_.get(), staged, length, send_ring_->region().descriptor(), FI_ADDR_UNSPEC,
                 mapping->address + (at - mapping->offset), mapping->key, &op->context);
    if (rc < 0) {
      release_last_op();
      if (rc != -FI_EAGAIN) {
        fail_post("fi_write to an iomap", rc);
      }
      break;
    }
    (void)send_ring_->space().take(length);
    op->staged = length;
    op->send_ring = send_ring_generation_;
    total += length;
    ++counters_.iomap_writes;
  }
  return total;
}

IoResult ChannelCore::iowrite(std::span<const std::byte> data, std::uint64_t offset,
                              Blocking blocking) {
  if (closed_ || write_shut_) {
    return IoResult::failed(
        Status(StatusCode::kInvalidArgument,
               fmt::format("iowrite on rstream channel to {} after it was {}", peer_name_,
                           closed_ ? "closed" : "shut down for writing")));
  }
  progress();
  std::size_t total = 0;
  while (true) {
    if (Status failure = write_failure(); !failure.ok()) {
      return IoResult::failed(std::move(failure), total);
    }
    total += write_iomap(data.subspan(total), offset + total);
    if (total == data.size()) {
      return IoResult::done(total);
    }
    const std::uint64_t at = offset + total;
    if (peer_mapping_at(at) == nullptr) {
      return IoResult::failed(
          Status(StatusCode::kInvalidArgument,
                 fmt::format("iowrite to rstream peer {}: no mapping of the peer covers stream "
                             "offset {} ({} of {} bytes written)",
                             peer_name_, at, total, data.size())),
          total);
    }
    if (blocking == Blocking::kNonBlocking) {
      return total > 0 ? IoResult::done(total) : IoResult::blocked();
    }
    wait_until(
        [this] {
          return (send_slots_.can_take_data() && send_ring_->space().contiguous_free() > 0) ||
                 disconnected_;
        },
        Clock::time_point::max());
  }
}

}  // namespace railyard::rstream::detail
