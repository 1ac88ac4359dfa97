// The numbered messages a path has carried and its peer has not acknowledged
// yet, oldest first, each kept as it went on the wire (header and payload) so
// that it can go again over another path if this one fails (rail failover,
// docs/architecture.md).
//
// Every numbered message passes through here, so keeping one must not cost an
// allocation: the queue is a ring of slots whose buffers outlive the messages
// in them, so a busy path holds about its peak of unacknowledged bytes. Once
// it is found empty (trim), the buffers above kKeptCapacity are freed and a
// ring that a burst grew beyond kKeptSlots shrinks back, so what a quiet
// path holds stays bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "railyard/mrail/detail/sequence.h"

namespace railyard::mrail {

struct RetainedMessage {
  SeqNum path_seq = 0;
  std::vector<std::byte> bytes;
};

class RetainedQueue {
 public:
  // What a quiet path keeps: the buffers of messages up to 2 KiB with their
  // header (the sizes whose latency the copy would show in), in as many
  // slots as a ping-pong or a short burst leaves unacknowledged; about
  // 70 KiB a path at most.
  static constexpr std::size_t kKeptCapacity = 2048 + 64;
  static constexpr std::size_t kKeptSlots = 32;

  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  // The payload and header bytes of the messages kept.
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }
  // What the queue holds in memory, kept or not: its slots and their buffers.
  [[nodiscard]] std::uint64_t held_bytes() const noexcept;

  // Keeps a copy of `message`, numbered `path_seq`, as the newest.
  void push(SeqNum path_seq, std::span<const std::byte> message) {
    if (count_ == slots_.size()) [[unlikely]] {
      grow();
    }
    RetainedMessage& slot = slots_[(head_ + count_) & (slots_.size() - 1)];
    slot.path_seq = path_seq;
    slot.bytes.assign(message.begin(), message.end());
    bytes_ += message.size();
    ++count_;
    oversized_ |= message.size() > kKeptCapacity;
  }

  // Drops the messages numbered up to and including `acked`.
  void release_through(SeqNum acked) noexcept {
    while (count_ != 0) {
      RetainedMessage& oldest = slots_[head_];
      if (seq_before(acked, oldest.path_seq)) {
        return;
      }
      bytes_ -= oldest.bytes.size();
      head_ = (head_ + 1) & (slots_.size() - 1);
      --count_;
    }
  }

  // If empty, frees the buffers above kKeptCapacity and shrinks a ring that
  // a burst grew past kKeptSlots back to them. Called by the path watch
  // (Endpoint::check_paths), not as messages are acknowledged: a stream of
  // bursts would free and allocate them every time.
  void trim() noexcept {
    if (count_ == 0 && (oversized_ || slots_.size() > kKeptSlots)) [[unlikely]] {
      shrink();
    }
  }

  // Calls `visit(const RetainedMessage&)` on each message, oldest first.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (std::size_t i = 0; i < count_; ++i) {
      visit(slots_[(head_ + i) & (slots_.size() - 1)]);
    }
  }

  // Drops every message (they went again over another path).
  void clear() noexcept;

 private:
  void grow();
  void shrink() noexcept;

  std::vector<RetainedMessage> slots_;  // a power of two of them, or none
  std::size_t head_ = 0;                // the oldest message's slot
  std::size_t count_ = 0;
  std::uint64_t bytes_ = 0;
  bool oversized_ = false;  // some slot may hold a buffer above kKeptCapacity
};

}  // namespace railyard::mrail
