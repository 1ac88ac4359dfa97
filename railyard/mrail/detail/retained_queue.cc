#include "railyard/mrail/detail/retained_queue.h"

#include <utility>

namespace railyard::mrail {

void RetainedQueue::grow() {
  // Doubles the ring (from 8 slots), the messages kept moving to its start
  // in order (their buffers move, not their bytes).
  std::vector<RetainedMessage> larger(slots_.empty() ? kKeptSlots / 4 : slots_.size() * 2);
  for (std::size_t i = 0; i < count_; ++i) {
    larger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
  }
  slots_ = std::move(larger);
  head_ = 0;
}

void RetainedQueue::shrink() noexcept {
  // Called once empty, so no message moves.
  if (oversized_) {
    for (RetainedMessage& slot : slots_) {
      if (slot.bytes.capacity() > kKeptCapacity) {
        std::vector<std::byte>().swap(slot.bytes);
      }
    }
    oversized_ = false;
  }
  if (slots_.size() > kKeptSlots) {
    slots_.resize(kKeptSlots);
    // resize keeps the larger ring's storage; giving it back is what bounds a
    // quiet path. (libstdc++'s shrink_to_fit keeps the old storage, rather
    // than throwing, if the smaller one cannot be allocated.)
    slots_.shrink_to_fit();
  }
  head_ = 0;
}

std::uint64_t RetainedQueue::held_bytes() const noexcept {
  std::uint64_t held = slots_.capacity() * sizeof(RetainedMessage);
  for (const RetainedMessage& slot : slots_) {
    held += slot.bytes.capacity();
  }
  return held;
}

void RetainedQueue::clear() noexcept {
  count_ = 0;
  bytes_ = 0;
  shrink();
}

}  // namespace railyard::mrail
