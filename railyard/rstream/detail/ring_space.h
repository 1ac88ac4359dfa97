// Bookkeeping of a byte ring used in order: space is taken at the head in
// contiguous pieces (a piece never wraps) and given back at the tail in the
// order it was taken. It tracks the peer's receive ring (what we may write),
// our send staging ring (what writes in flight still use) and our receive
// ring (what the peer wrote and we have not read) alike.
#pragma once

#include <algorithm>
#include <cstddef>

namespace railyard::rstream {

class RingSpace {
 public:
  explicit RingSpace(std::size_t size) noexcept : size_(size) {}

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t used() const noexcept { return used_; }
  [[nodiscard]] std::size_t free() const noexcept { return size_ - used_; }
  // Offset of the oldest byte in use.
  [[nodiscard]] std::size_t tail() const noexcept { return tail_; }
  // Offset where the next piece starts.
  [[nodiscard]] std::size_t head() const noexcept { return (tail_ + used_) % size_; }
  // The largest piece take() accepts now: free space up to the ring's end.
  [[nodiscard]] std::size_t contiguous_free() const noexcept {
    return std::min(free(), size_ - head());
  }
  // The bytes in use from the tail up to the ring's end.
  [[nodiscard]] std::size_t contiguous_used() const noexcept {
    return std::min(used_, size_ - tail_);
  }

  // Takes `length` bytes at head(). Returns false, changing nothing, when
  // they are not free and contiguous.
  [[nodiscard]] bool take(std::size_t length) noexcept {
    if (length > contiguous_free()) {
      return false;
    }
    used_ += length;
    return true;
  }

  // Gives back the oldest `length` bytes. Returns false, changing nothing,
  // when fewer are in use.
  [[nodiscard]] bool give_back(std::size_t length) noexcept {
    if (length > used_) {
      return false;
    }
    used_ -= length;
    tail_ = (tail_ + length) % size_;
    return true;
  }

 private:
  std::size_t size_;
  std::size_t tail_ = 0;
  std::size_t used_ = 0;
};

}  // namespace railyard::rstream
