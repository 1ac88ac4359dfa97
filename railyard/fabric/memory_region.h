// Owner of a memory registration.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "railyard/fabric/endpoint.h"
#include "railyard/fabric/fabric.h"
#include "railyard/fabric/fid_handle.h"

namespace railyard::fabric {

class MemoryRegion {
 public:
  MemoryRegion() = default;
  // fi_mr_reg of [base, base + length) with `access` (FI_READ | FI_REMOTE_WRITE ...).
  // `requested_key` matters only to providers without FI_MR_PROV_KEY.
  MemoryRegion(const Domain& domain, const void* base, std::size_t length, std::uint64_t access,
               std::uint64_t requested_key);

  // For FI_MR_ENDPOINT providers: bind to the endpoint, then enable.
  void bind_and_enable(const Endpoint& endpoint);

  // The local descriptor passed with data transfers (fi_mr_desc).
  [[nodiscard]] void* descriptor() const noexcept;
  // The remote key (fi_mr_key); FI_KEY_NOTAVAIL for raw-key providers.
  [[nodiscard]] std::uint64_t key() const noexcept;
  // For FI_MR_RAW providers: the raw key and the base address peers target.
  [[nodiscard]] std::vector<std::byte> raw_key(std::uint64_t& base_address) const;

  [[nodiscard]] fid_mr* get() const noexcept { return handle_.get(); }

 private:
  FidHandle<fid_mr> handle_;
};

// A raw key of a peer's region mapped into this domain (fi_mr_map_raw); the
// mapping is released (fi_mr_unmap_key) when the owner goes away.
class MappedKey {
 public:
  MappedKey() = default;
  MappedKey(const Domain& domain, std::uint64_t base_address, std::vector<std::byte> raw_key);
  ~MappedKey();
  MappedKey(const MappedKey&) = delete;
  MappedKey& operator=(const MappedKey&) = delete;
  MappedKey(MappedKey&& other) noexcept;
  MappedKey& operator=(MappedKey&& other) noexcept;

  [[nodiscard]] std::uint64_t key() const noexcept { return key_; }

 private:
  void release() noexcept;

  fid_domain* domain_ = nullptr;
  std::uint64_t key_ = 0;
};

}  // namespace railyard::fabric
