#include "railyard/fabric/memory_region.h"

#include <rdma/fi_errno.h>

#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::fabric {

MemoryRegion::MemoryRegion(const Domain& domain, const void* base, std::size_t length,
                           std::uint64_t access, std::uint64_t requested_key) {
  fid_mr* raw = nullptr;
  check_fabric(fi_mr_reg(domain.get(), base, length, access, 0, requested_key, 0, &raw, nullptr),
               "fi_mr_reg", fmt::format("registering {} bytes at {}", length, base));
  handle_ = FidHandle<fid_mr>(raw, "memory region");
}

void MemoryRegion::bind_and_enable(const Endpoint& endpoint) {
  check_fabric(fi_mr_bind(handle_.get(), &endpoint.get()->fid, 0), "fi_mr_bind",
               "binding a memory region to the endpoint");
  check_fabric(fi_mr_enable(handle_.get()), "fi_mr_enable", "enabling a memory region");
}

void* MemoryRegion::descriptor() const noexcept { return fi_mr_desc(handle_.get()); }

std::uint64_t MemoryRegion::key() const noexcept { return fi_mr_key(handle_.get()); }

std::vector<std::byte> MemoryRegion::raw_key(std::uint64_t& base_address) const {
  std::size_t size = 0;
  std::uint64_t base = 0;
  const int probe = fi_mr_raw_attr(handle_.get(), &base, nullptr, &size, 0);
  if (probe != -FI_ETOOSMALL && probe != 0) {
    check_fabric(probe, "fi_mr_raw_attr", "asking for the raw key size");
  }
  std::vector<std::byte> key(size);
  check_fabric(
      fi_mr_raw_attr(handle_.get(), &base, reinterpret_cast<std::uint8_t*>(key.data()), &size, 0),
      "fi_mr_raw_attr", "reading the raw key");
  key.resize(size);
  base_address = base;
  return key;
}

MappedKey::MappedKey(const Domain& domain, std::uint64_t base_address,
                     std::vector<std::byte> raw_key)
    : domain_(domain.get()) {
  check_fabric(fi_mr_map_raw(domain_, base_address, reinterpret_cast<std::uint8_t*>(raw_key.data()),
                             raw_key.size(), &key_, 0),
               "fi_mr_map_raw", fmt::format("mapping a {}-byte raw key", raw_key.size()));
}

MappedKey::~MappedKey() { release(); }

MappedKey::MappedKey(MappedKey&& other) noexcept
    : domain_(std::exchange(other.domain_, nullptr)), key_(other.key_) {}

MappedKey& MappedKey::operator=(MappedKey&& other) noexcept {
  if (this != &other) {
    release();
    domain_ = std::exchange(other.domain_, nullptr);
    key_ = other.key_;
  }
  return *this;
}

void MappedKey::release() noexcept {
  if (domain_ != nullptr) {
    const int rc = fi_mr_unmap_key(domain_, key_);
    if (rc != 0) {
      log::warn("fi_mr_unmap_key failed: {} ({})", fi_strerror(-rc), rc);
    }
    domain_ = nullptr;
  }
}

}  // namespace railyard::fabric
