// A byte ring with its own memory registration: a channel's send staging
// ring, or the receive ring its peer writes into. Rings are separate
// registrations so that one can be replaced by a larger one while the
// stream runs (see ChannelCore's ring growth), the old one living on until
// the bytes in it are gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "railyard/fabric/memory_region.h"
#include "railyard/rstream/detail/ring_space.h"

namespace railyard::rstream {

class RegisteredRing {
 public:
  // `trailer` bytes after the ring belong to the registration but never to
  // the ring (a receive ring's keepalive probe word).
  RegisteredRing(std::size_t size, std::size_t trailer)
      : memory_(std::make_unique<std::byte[]>(size + trailer)), trailer_(trailer), space_(size) {}

  [[nodiscard]] std::byte* data() const noexcept { return memory_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return space_.size(); }
  // Registered length: the ring and its trailer.
  // Bytes to register: the ring and its trailer.
  [[nodiscard]] std::size_t registered_size() const noexcept { return size() + trailer_; }
  [[nodiscard]] RingSpace& space() noexcept { return space_; }
  [[nodiscard]] const RingSpace& space() const noexcept { return space_; }
  [[nodiscard]] fabric::MemoryRegion& region() noexcept { return region_; }
  [[nodiscard]] const fabric::MemoryRegion& region() const noexcept { return region_; }

 private:
  std::unique_ptr<std::byte[]> memory_;
  std::size_t trailer_;
  RingSpace space_;
  fabric::MemoryRegion region_;  // set by the owner, which knows the domain and endpoint
};

}  // namespace railyard::rstream
