// Taking stream bytes in: completions and connection events, the receive
// ring, and the receive call itself.
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "railyard/common/detail/log.h"
#include "railyard/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {
namespace {

template <typename T>
std::optional<std::size_t> index_in(const std::vector<T>& items, const void* context) {
  if (items.empty()) {
    return std::nullopt;
  }
  const auto* first = reinterpret_cast<const std::byte*>(items.data());
  const auto* at = static_cast<const std::byte*>(context);
  if (at < first || at >= first + items.size() * sizeof(T)) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(at - first) / sizeof(T);
}

}  // namespace

void ChannelCore::progress() {
  if (!connected_ || closed_) {
    return;
  }
  // Reading the event queue costs the provider another progress pass (a
  // system call with tcp), so it waits until the completions run dry: a
  // disconnect shows there first anyway, as failed or flushed operations.
  if (read_completions() == 0) {
    read_events();
  }
  announce_if_due();
  update_signal();
}

std::size_t ChannelCore::read_completions() {
  std::array<fi_cq_tagged_entry, 16> entries{};
  std::size_t total = 0;
  while (true) {
    const long count = cq_.read(entries);
    if (count == -FI_EAVAIL) {
      on_completion_error();
      ++total;
      continue;
    }
    if (count < 0) {
      fail(Status(StatusCode::kIoError,
                  fmt::format("rstream channel to {}: fi_cq_read failed: {}", peer_name_,
                              fi_strerror(static_cast<int>(-count))),
                  static_cast<int>(-count)));
      return total;
    }
    for (long i = 0; i < count; ++i) {
      on_completion(entries[static_cast<std::size_t>(i)]);
    }
    total += static_cast<std::size_t>(count);
    if (static_cast<std::size_t>(count) < entries.size()) {
      return total;
    }
  }
}

void ChannelCore::on_completion(const fi_cq_tagged_entry& entry) {
  if (const auto slot = index_in(receive_slots_, entry.op_context)) {
    if ((entry.flags & FI_REMOTE_CQ_DATA) != 0) {
      // A provider with FI_RX_CQ_DATA spent a receive on a ring write.
      on_data(entry.data);
      repost(*slot);
    } else {
      on_control(*slot, entry.len);
    }
    return;
  }
  if (const auto op = index_in(ops_, entry.op_context)) {
    SendOp& done = ops_[*op];
    done.done = true;
    if (done.kind == SendKind::kProbe) {
      probe_sent_.reset();
      last_heard_ = Clock::now();
    }
    retire_sends();
    return;
  }
  if ((entry.flags & FI_REMOTE_CQ_DATA) != 0) {
    on_data(entry.data);
    return;
  }
  log::debug("rstream channel to {}: ignoring a completion with flags {:#x}", peer_name_,
             entry.flags);
}

void ChannelCore::on_completion_error() {
  fi_cq_err_entry entry{};
  if (!cq_.read_error(entry)) {
    return;
  }
  const auto op = index_in(ops_, entry.op_context);
  const bool carried_data =
      op && (ops_[*op].kind == SendKind::kRing || ops_[*op].kind == SendKind::kIomap);
  if (op) {
    // The operation is over either way; its resources come back.
    ops_[*op].done = true;
    retire_sends();
  }
  if (closed_ || (disconnected_ && entry.err == FI_ECANCELED)) {
    return;
  }
  const bool gone = entry.err == FI_ECANCELED || entry.err == FI_ENOTCONN ||
                    entry.err == FI_ECONNRESET || entry.err == FI_ECONNABORTED ||
                    entry.err == EPIPE || entry.err == FI_ETIMEDOUT;
  if (!carried_data && gone && peer_write_shut_) {
    // A receive, control message or probe cut short because the peer, done
    // writing, disconnected: the end of stream it announced, not a failure.
    // Stream bytes that could not be delivered still fail the channel.
    log::debug("rstream channel to {}: an operation ended by the peer's disconnect", peer_name_);
    return;
  }
  if (gone) {
    fail(Status(StatusCode::kUnreachable,
                fmt::format("rstream connection to {} was lost ({}: {}): did the peer's process "
                            "exit or die?",
                            peer_name_, fi_strerror(entry.err), cq_.error_text(entry)),
                entry.err));
    return;
  }
  fail(Status(StatusCode::kIoError,
              fmt::format("rstream connection to {} failed: {} ({})", peer_name_,
                          fi_strerror(entry.err), cq_.error_text(entry)),
              entry.err));
}

void ChannelCore::read_events() {
  while (auto event = eq_.read()) {
    if (event->error != 0) {
      if (!closed_) {
        fail(Status(StatusCode::kUnreachable,
                    fmt::format("rstream connection to {} failed: {} ({})", peer_name_,
                                event->error_text, fi_strerror(event->error)),
                    event->error));
      }
      continue;
    }
    if (event->type != FI_SHUTDOWN) {
      log::debug("rstream channel to {}: ignoring {}", peer_name_, fabric::event_name(event->type));
      continue;
    }
    // Whatever the peer sent before it disconnected is ahead of this event.
    read_completions();
    disconnected_ = true;
    if (!peer_write_shut_ && !read_shut_ && !closed_) {
      fail(Status(StatusCode::kUnreachable,
                  fmt::format("rstream peer {} closed the connection without shutting its "
                              "stream down (did its process exit or die?)",
                              peer_name_)));
    }
  }
}

void ChannelCore::on_data(std::uint64_t immediate) {
  const std::uint64_t length = immediate & kMaxWriteLength;
  ++unreturned_receives_;
  last_heard_ = Clock::now();
  RegisteredRing* ring = ring_written(immediate);
  if (ring == nullptr) {
    return;
  }
  if (length == 0 || !ring->space().take(length)) {
    fail(Status(StatusCode::kIoError,
                fmt::format("rstream protocol error: peer {} wrote {} bytes where the receive "
                            "ring had {} contiguous bytes free",
                            peer_name_, length, ring->space().contiguous_free())));
    return;
  }
  if ((immediate & kWriteStalledBit) != 0) {
    ++stall_hints_;
  }
  if (read_shut_) {
    (void)ring->space().give_back(length);
    freed_bytes_ += length;
  }
  release_drained_ring();
}

void ChannelCore::on_control(std::size_t slot, std::size_t length) {
  std::array<std::byte, kReceiveSlotSize> copy{};
  std::memcpy(copy.data(), receive_buffer(slot), std::min(length, copy.size()));
  repost(slot);
  ++unreturned_receives_;
  ++counters_.control_received;
  last_heard_ = Clock::now();
  std::string error;
  const auto message =
      decode_control(std::span<const std::byte>(copy.data(), std::min(length, copy.size())), error);
  if (!message) {
    fail(Status(StatusCode::kIoError,
                fmt::format("rstream protocol error from peer {}: {}", peer_name_, error)));
    return;
  }
  if (!peer_receives_.give_back(message->returned_receives) ||
      !take_ring_credit(message->freed_bytes)) {
    fail(Status(StatusCode::kIoError,
                fmt::format("rstream protocol error: peer {} returned {} receives and {} ring "
                            "bytes, more than it was given ({} and {})",
                            peer_name_, message->returned_receives, message->freed_bytes,
                            peer_receives_.in_use(), remote_ring_.used() + old_remote_bytes_)));
    return;
  }
  switch (message->type) {
    case ControlType::kCredit:
      break;
    case ControlType::kShutdown:
      peer_write_shut_ = true;
      break;
    case ControlType::kRingGrow:
      on_ring_grant(message->ring);
      break;
    case ControlType::kIomapAdd:
    case ControlType::kIomapRemove:
      if (message->iomap.slot >= peer_maps_.size() ||
          (message->type == ControlType::kIomapAdd && message->iomap.length == 0)) {
        fail(Status(StatusCode::kIoError,
                    fmt::format("rstream protocol error: peer {} sent {} for slot {} of {} "
                                "({} bytes)",
                                peer_name_, to_string(message->type), message->iomap.slot,
                                peer_maps_.size(), message->iomap.length)));
        return;
      }
      if (message->type == ControlType::kIomapAdd) {
        peer_maps_[message->iomap.slot] = message->iomap;
      } else {
        peer_maps_[message->iomap.slot].reset();
      }
      break;
  }
}

void ChannelCore::repost(std::size_t slot) {
  const ssize_t rc = fi_recv(endpoint_.get(), receive_buffer(slot), kReceiveSlotSize,
                             region_.descriptor(), FI_ADDR_UNSPEC, &receive_slots_[slot].context);
  if (rc < 0 && !closed_ && !disconnected_) {
    fail_post("reposting a receive", rc);
  }
}

std::size_t ChannelCore::copy_out(std::span<std::byte> out, bool consume) {
  std::size_t copied = 0;
  // A replaced ring holds the older bytes.
  for (RegisteredRing* ring : {draining_ring_.get(), receive_ring_.get()}) {
    if (ring == nullptr) {
      continue;
    }
    RingSpace& space = ring->space();
    const std::size_t start = copied;
    std::size_t tail = space.tail();
    std::size_t left = std::min(out.size() - copied, space.used());
    while (left > 0) {
      const std::size_t piece = std::min(left, space.size() - tail);
      std::memcpy(out.data() + copied, ring->data() + tail, piece);
      copied += piece;
      left -= piece;
      tail = (tail + piece) % space.size();
    }
    if (consume) {
      (void)space.give_back(copied - start);
    }
  }
  if (consume) {
    freed_bytes_ += copied;
    counters_.bytes_received += copied;
    release_drained_ring();
  }
  return copied;
}

std::size_t ChannelCore::unread_bytes() const noexcept {
  return receive_ring_->space().used() + (draining_ring_ ? draining_ring_->space().used() : 0);
}

bool ChannelCore::readable() const noexcept {
  return unread_bytes() > 0 || peer_write_shut_ || read_shut_ || !error_.ok();
}

IoResult ChannelCore::receive(std::span<std::byte> out, Blocking blocking, bool peek,
                              bool wait_all) {
  if (closed_) {
    return IoResult::failed(
        Status(StatusCode::kInvalidArgument,
               fmt::format("receive on a closed rstream channel to {}", peer_name_)));
  }
  if (out.empty()) {
    return IoResult::done(0);
  }
  progress();
  std::size_t total = 0;
  while (true) {
    if (read_shut_) {
      return IoResult::eof(total);
    }
    if (unread_bytes() > 0) {
      total += copy_out(out.subspan(total), !peek);
      if (peek || !wait_all || total == out.size()) {
        announce_if_due();
        update_signal();
        return IoResult::done(total);
      }
      continue;
    }
    // Every byte the peer sent before failing or shutting down was read.
    if (peer_write_shut_) {
      update_signal();
      return IoResult::eof(total);
    }
    if (!error_.ok()) {
      return IoResult::failed(error_, total);
    }
    if (blocking == Blocking::kNonBlocking) {
      announce_if_due();
      update_signal();
      return total > 0 ? IoResult::done(total) : IoResult::blocked();
    }
    announce_if_due();
    wait_until([this] { return readable(); }, Clock::time_point::max());
  }
}

}  // namespace railyard::rstream::detail
