// A count of slots on one side of a connection (our send queue entries, the
// peer's posted receives), of which the last few are kept for control
// messages: stream data can never take them, so a side that ran out of data
// credits can still tell its peer what it has freed, and two sides waiting
// on each other always get unstuck.
#pragma once

#include <cstddef>

namespace railyard::rstream {

class Credits {
 public:
  Credits() = default;
  Credits(std::size_t total, std::size_t reserved) noexcept
      : total_(total), reserved_(reserved), available_(total) {}

  [[nodiscard]] std::size_t total() const noexcept { return total_; }
  [[nodiscard]] std::size_t available() const noexcept { return available_; }
  [[nodiscard]] std::size_t in_use() const noexcept { return total_ - available_; }

  [[nodiscard]] bool can_take_data() const noexcept { return available_ > reserved_; }
  [[nodiscard]] bool can_take_control() const noexcept { return available_ > 0; }

  // Takes one slot for data (never a reserved one) or for control.
  [[nodiscard]] bool take_data() noexcept { return can_take_data() && take(); }
  [[nodiscard]] bool take_control() noexcept { return can_take_control() && take(); }

  // Returns `count` slots. Returns false, changing nothing, when more come
  // back than were taken (a peer announcing credits it never had).
  [[nodiscard]] bool give_back(std::size_t count) noexcept {
    if (count > in_use()) {
      return false;
    }
    available_ += count;
    return true;
  }

 private:
  bool take() noexcept {
    --available_;
    return true;
  }

  std::size_t total_ = 0;
  std::size_t reserved_ = 0;
  std::size_t available_ = 0;
};

}  // namespace railyard::rstream
