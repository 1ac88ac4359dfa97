// Memory a rail can move data to and from: regions registered here, and
// regions a peer registered and described with a remote key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "railyard/fabric/memory_region.h"
#include "railyard/rail/buffer.h"

namespace railyard::rail {

// Memory registered with one rail. Create it with Rail::register_memory.
// It keeps the rail's domain alive, so it may outlive the Rail object.
class LocalRegion {
 public:
  LocalRegion() = default;

  [[nodiscard]] void* base() const noexcept { return base_; }
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  [[nodiscard]] void* descriptor() const noexcept { return descriptor_; }

  // [offset, offset + length) of the region with its descriptor; throws
  // Error when the range falls outside the region.
  [[nodiscard]] MutableBuffer slice(std::size_t offset, std::size_t length) const;
  [[nodiscard]] MutableBuffer whole() const noexcept { return {base_, length_, descriptor_}; }

  // What a peer needs to target this region (see remote_key.h).
  [[nodiscard]] const std::vector<std::byte>& remote_key() const noexcept { return remote_key_; }

 private:
  friend class Rail;

  std::shared_ptr<const void> domain_keepalive_;  // destroyed after the registration
  fabric::MemoryRegion registration_;
  void* base_ = nullptr;
  std::size_t length_ = 0;
  void* descriptor_ = nullptr;
  std::vector<std::byte> remote_key_;
};

// A peer's region, imported from its remote key with Rail::import_region.
class RemoteRegion {
 public:
  RemoteRegion() = default;

  [[nodiscard]] std::uint64_t length() const noexcept { return length_; }
  [[nodiscard]] std::uint64_t key() const noexcept { return key_; }
  // The address to hand the provider for byte `offset` of the region.
  [[nodiscard]] std::uint64_t address(std::uint64_t offset) const noexcept {
    return base_address_ + offset;
  }

 private:
  friend class Rail;

  std::shared_ptr<const void> domain_keepalive_;  // destroyed after the mapping
  fabric::MappedKey mapped_;
  std::uint64_t base_address_ = 0;
  std::uint64_t length_ = 0;
  std::uint64_t key_ = 0;
};

}  // namespace railyard::rail
