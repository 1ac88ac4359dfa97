// Messages that arrive before their turn wait here, in a window of fixed
// capacity starting at the next sequence number to match. It also counts
// the messages whose turn has passed, so a past sequence number can be
// unwrapped to a 64-bit ordinal that never repeats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "railyard/mrail/detail/sequence.h"

namespace railyard::mrail {

template <typename T>
class ReorderBuffer {
 public:
  enum class Placement {
    kPast,    // its turn has gone: a duplicate, or a late fragment of a matched message
    kWindow,  // within [next, next + capacity)
    kBeyond,  // past the window: the sender broke its window
  };

  // capacity must be a power of two.
  explicit ReorderBuffer(std::uint32_t capacity, SeqNum first = 0)
      : slots_(capacity), mask_(capacity - 1), next_(first) {}

  [[nodiscard]] SeqNum next() const noexcept { return next_; }
  // Messages whose turn has passed: the ordinal of the next one.
  [[nodiscard]] std::uint64_t delivered() const noexcept { return delivered_; }
  // The ordinal of the most recent message whose turn has passed and whose
  // sequence number is `seq`; nullopt if none has (before the first).
  [[nodiscard]] std::optional<std::uint64_t> ordinal_of_past(SeqNum seq) const noexcept {
    const std::uint64_t back = seq == next_ ? std::uint64_t{1} << 32 : seq_distance(seq, next_);
    if (back > delivered_) {
      return std::nullopt;
    }
    return delivered_ - back;
  }
  [[nodiscard]] std::uint32_t capacity() const noexcept { return mask_ + 1; }
  [[nodiscard]] std::size_t occupied() const noexcept { return occupied_; }

  [[nodiscard]] Placement place(SeqNum seq) const noexcept {
    if (seq_before(seq, next_)) {
      return Placement::kPast;
    }
    return seq_distance(next_, seq) <= mask_ ? Placement::kWindow : Placement::kBeyond;
  }

  // The slot of a sequence number in the window (place(seq) == kWindow).
  [[nodiscard]] T* find(SeqNum seq) noexcept {
    auto& slot = slots_[seq & mask_];
    return slot ? &*slot : nullptr;
  }
  T& emplace(SeqNum seq, T value) {
    auto& slot = slots_[seq & mask_];
    if (!slot) {
      ++occupied_;
    }
    slot = std::move(value);
    return *slot;
  }

  // Whether the message whose turn it is has arrived.
  [[nodiscard]] bool next_ready() const noexcept { return slots_[next_ & mask_].has_value(); }

  // Moves the window on by one when the message whose turn it is was handled
  // without being stored (its slot is empty).
  void skip_next() noexcept {
    ++next_;
    ++delivered_;
  }

  // Removes the message whose turn it is and moves the window on by one.
  [[nodiscard]] T take_next() {
    auto& slot = slots_[next_ & mask_];
    T value = std::move(*slot);
    slot.reset();
    --occupied_;
    ++next_;
    ++delivered_;
    return value;
  }

 private:
  std::vector<std::optional<T>> slots_;
  std::uint32_t mask_;
  SeqNum next_;
  std::uint64_t delivered_ = 0;
  std::size_t occupied_ = 0;
};

}  // namespace railyard::mrail
