// Registrations of user buffers on one rail, kept for reuse by rendezvous
// transfers so a buffer sent repeatedly is registered once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>

#include "railyard/rail/buffer.h"
#include "railyard/rail/memory_regions.h"

namespace railyard::rail {
class Rail;
}

namespace railyard::mrail {

class RegistrationCache {
 private:
  struct Entry;

 public:
  // `enabled` false: every lease registers afresh and deregisters on release.
  // Otherwise released registrations stay, least recently used evicted first
  // once more than `capacity_bytes` are held.
  RegistrationCache(rail::Rail& rail, bool enabled, std::uint64_t capacity_bytes);
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;
  RegistrationCache(RegistrationCache&&) = delete;
  RegistrationCache& operator=(RegistrationCache&&) = delete;

  // A registration covering [base, base + length), held while the lease lives.
  class Lease {
   public:
    Lease() = default;
    ~Lease() { release(); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;

    [[nodiscard]] const rail::LocalRegion& region() const noexcept;
    // [data, data + length) with the registration's descriptor.
    [[nodiscard]] rail::MutableBuffer buffer(const void* data, std::size_t length) const noexcept;
    // Ends the lease and keeps the registration out of the cache, so it is
    // closed once no other lease holds it: a peer that still has its key can
    // no longer reach the memory, which may be freed.
    void revoke() noexcept;

   private:
    friend class RegistrationCache;
    Lease(RegistrationCache* cache, Entry* entry) : cache_(cache), entry_(entry) {}
    void release() noexcept;
    RegistrationCache* cache_ = nullptr;
    Entry* entry_ = nullptr;
  };

  // Throws FabricError when the provider refuses the registration.
  [[nodiscard]] Lease acquire(const void* base, std::size_t length);

  [[nodiscard]] bool enabled() const noexcept { return enabled_; }
  [[nodiscard]] std::uint64_t hits() const noexcept { return hits_; }
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_; }
  [[nodiscard]] std::uint64_t cached_bytes() const noexcept { return cached_bytes_; }

 private:
  struct Entry {
    rail::LocalRegion region;
    std::uintptr_t start = 0;
    std::uintptr_t end = 0;
    std::uint32_t pins = 0;
    bool cached = false;  // in the map (else a one-off, destroyed on release)
    std::list<Entry*>::iterator lru;
  };

  void release(Entry* entry) noexcept;
  void revoke(Entry* entry) noexcept;
  void evict() noexcept;

  rail::Rail& rail_;
  bool enabled_;
  std::uint64_t capacity_bytes_;
  std::map<std::uintptr_t, std::unique_ptr<Entry>> entries_;  // by start
  // Registrations not kept for reuse, owned until their lease ends.
  std::map<Entry*, std::unique_ptr<Entry>> one_offs_;
  std::list<Entry*> unpinned_;  // least recently used first
  std::uint64_t cached_bytes_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace railyard::mrail
