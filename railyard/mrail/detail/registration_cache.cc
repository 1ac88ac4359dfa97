#include "railyard/mrail/detail/registration_cache.h"

#include <unistd.h>

#include <utility>

#include "railyard/rail/rail.h"

namespace railyard::mrail {
namespace {

std::uintptr_t page_size() {
  static const auto size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

RegistrationCache::RegistrationCache(rail::Rail& rail, bool enabled, std::uint64_t capacity_bytes)
    : rail_(rail), enabled_(enabled), capacity_bytes_(capacity_bytes) {}

RegistrationCache::~RegistrationCache() = default;

RegistrationCache::Lease::Lease(Lease&& other) noexcept
    : cache_(std::exchange(other.cache_, nullptr)), entry_(std::exchange(other.entry_, nullptr)) {}

RegistrationCache::Lease& RegistrationCache::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release();
    cache_ = std::exchange(other.cache_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
  }
  return *this;
}

const rail::LocalRegion& RegistrationCache::Lease::region() const noexcept {
  return entry_->region;
}

rail::MutableBuffer RegistrationCache::Lease::buffer(const void* data,
                                                     std::size_t length) const noexcept {
  return rail::MutableBuffer{const_cast<void*>(data), length, entry_->region.descriptor()};
}

void RegistrationCache::Lease::release() noexcept {
  if (cache_ != nullptr) {
    cache_->release(entry_);
    cache_ = nullptr;
    entry_ = nullptr;
  }
}

void RegistrationCache::Lease::revoke() noexcept {
  if (cache_ != nullptr) {
    cache_->revoke(entry_);
    cache_ = nullptr;
    entry_ = nullptr;
  }
}

RegistrationCache::Lease RegistrationCache::acquire(const void* base, std::size_t length) {
  // Whole pages, so neighbouring buffers of one allocation share an entry.
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t start = address & ~(page_size() - 1);
  const std::uintptr_t end =
      (address + std::max<std::size_t>(length, 1) + page_size() - 1) & ~(page_size() - 1);
  if (enabled_) {
    auto it = entries_.upper_bound(address);
    if (it != entries_.begin()) {
      Entry* entry = std::prev(it)->second.get();
      if (entry->start <= address && address + length <= entry->end) {
        if (entry->pins++ == 0) {
          unpinned_.erase(entry->lru);
        }
        ++hits_;
        return {this, entry};
      }
    }
  }
  ++misses_;
  auto entry = std::make_unique<Entry>();
  // The page-aligned start, as a pointer derived from the caller's.
  auto* first_page =
      const_cast<std::byte*>(static_cast<const std::byte*>(base)) - (address - start);
  entry->region = rail_.register_memory(first_page, end - start);
  entry->start = start;
  entry->end = end;
  entry->pins = 1;
  Entry* raw = entry.get();
  if (enabled_) {
    // A stale, unpinned entry at the same start gives way to the larger one.
    auto existing = entries_.find(start);
    if (existing != entries_.end() && existing->second->pins == 0) {
      unpinned_.erase(existing->second->lru);
      cached_bytes_ -= existing->second->end - existing->second->start;
      entries_.erase(existing);
    }
    if (entries_.find(start) == entries_.end()) {
      raw->cached = true;
      cached_bytes_ += end - start;
      entries_.emplace(start, std::move(entry));
      evict();
      return {this, raw};
    }
  }
  one_offs_.emplace(raw, std::move(entry));
  return {this, raw};
}

void RegistrationCache::release(Entry* entry) noexcept {
  if (--entry->pins != 0) {
    return;
  }
  if (!entry->cached) {
    one_offs_.erase(entry);
    return;
  }
  entry->lru = unpinned_.insert(unpinned_.end(), entry);
  evict();
}

void RegistrationCache::revoke(Entry* entry) noexcept {
  if (entry->cached) {
    // From now on a one-off: no new lease finds it, the last one closes it.
    const auto it = entries_.find(entry->start);
    auto owned = std::move(it->second);
    entries_.erase(it);
    cached_bytes_ -= entry->end - entry->start;
    entry->cached = false;
    one_offs_.emplace(entry, std::move(owned));
  }
  release(entry);
}

void RegistrationCache::evict() noexcept {
  while (cached_bytes_ > capacity_bytes_ && !unpinned_.empty()) {
    Entry* victim = unpinned_.front();
    unpinned_.pop_front();
    cached_bytes_ -= victim->end - victim->start;
    entries_.erase(victim->start);
  }
}

}  // namespace railyard::mrail
