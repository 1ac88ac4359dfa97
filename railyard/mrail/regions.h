// Memory for one-sided transfers over every rail at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "railyard/mrail/peer_id.h"
#include "railyard/rail/memory_regions.h"

namespace railyard::mrail {

namespace detail {
class Rma;
}  // namespace detail

// A buffer registered on every rail of an endpoint (Endpoint::register_memory).
class MultiRegion {
 public:
  [[nodiscard]] void* base() const noexcept { return base_; }
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  // One blob holding the key of every rail, for the peer's import_region.
  [[nodiscard]] const std::vector<std::byte>& remote_key() const noexcept { return remote_key_; }

 private:
  friend class detail::Rma;
  void* base_ = nullptr;
  std::size_t length_ = 0;
  std::vector<rail::LocalRegion> rails_;  // by rail index
  std::vector<std::byte> remote_key_;
};

// A peer's MultiRegion, reachable over every path to that peer.
class RemoteMultiRegion {
 public:
  [[nodiscard]] PeerId peer() const noexcept { return peer_; }
  [[nodiscard]] std::uint64_t length() const noexcept { return length_; }

 private:
  friend class detail::Rma;
  PeerId peer_;
  std::uint64_t length_ = 0;
  // By path index; shared with the transfers under way to it, which may
  // outlive this object.
  std::vector<std::shared_ptr<const rail::RemoteRegion>> paths_;
};

}  // namespace railyard::mrail
