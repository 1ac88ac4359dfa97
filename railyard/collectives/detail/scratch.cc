#include "railyard/collectives/detail/scratch.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "railyard/common/detail/populate_pages.h"

namespace railyard::collectives::detail {
namespace {

struct Kept {
  std::unique_ptr<std::byte[]> buffer;
  std::size_t capacity = 0;
};

// Shared by every communicator of the process (thread ranks included): a
// collective takes its buffers once, at its start, so the lock is cold.
class ScratchPool {
 public:
  static ScratchPool& instance() {
    static ScratchPool pool;
    return pool;
  }

  // The smallest kept buffer of at least `bytes`, else a new one; its size
  // into `capacity`.
  std::unique_ptr<std::byte[]> take(std::size_t bytes, std::size_t& capacity) {
    {
      const std::lock_guard lock(mutex_);
      auto best = kept_.end();
      for (auto it = kept_.begin(); it != kept_.end(); ++it) {
        if (it->capacity >= bytes && (best == kept_.end() || it->capacity < best->capacity)) {
          best = it;
        }
      }
      if (best != kept_.end()) {
        std::unique_ptr<std::byte[]> found = std::move(best->buffer);
        capacity = best->capacity;
        kept_bytes_ -= best->capacity;
        kept_.erase(best);
        return found;
      }
    }
    capacity = bytes;
    auto fresh = std::make_unique_for_overwrite<std::byte[]>(bytes);
    // Fresh pages, about to be filled: faulted in at once, not one by one
    // on the collective's path (common/detail/populate_pages.h).
    (void)populate_pages(fresh.get(), bytes);
    return fresh;
  }

  void give(Kept buffer) noexcept {
    const std::lock_guard lock(mutex_);
    kept_bytes_ += buffer.capacity;
    kept_.push_back(std::move(buffer));
    while (kept_.size() > kScratchKeptBuffers || kept_bytes_ > kScratchKeptBytes) {
      const auto smallest =
          std::min_element(kept_.begin(), kept_.end(),
                           [](const Kept& a, const Kept& b) { return a.capacity < b.capacity; });
      kept_bytes_ -= smallest->capacity;
      kept_.erase(smallest);
    }
  }

 private:
  // Room for one more than is kept, so give() never allocates.
  ScratchPool() { kept_.reserve(kScratchKeptBuffers + 1); }

  std::mutex mutex_;
  std::vector<Kept> kept_;
  std::size_t kept_bytes_ = 0;
};

}  // namespace

Scratch::Scratch(std::size_t bytes) : size_(bytes) {
  if (bytes == 0) {
    return;
  }
  buffer_ = ScratchPool::instance().take(bytes, capacity_);
}

Scratch Scratch::copy_of(const std::byte* from, std::size_t bytes) {
  Scratch copy(bytes);
  if (bytes != 0) {
    std::memcpy(copy.data(), from, bytes);
  }
  return copy;
}

Scratch::~Scratch() { give_back(); }

Scratch::Scratch(Scratch&& other) noexcept
    : buffer_(std::move(other.buffer_)),
      capacity_(std::exchange(other.capacity_, 0)),
      size_(std::exchange(other.size_, 0)) {}

Scratch& Scratch::operator=(Scratch&& other) noexcept {
  if (this != &other) {
    give_back();
    buffer_ = std::move(other.buffer_);
    capacity_ = std::exchange(other.capacity_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void Scratch::give_back() noexcept {
  if (buffer_) {
    ScratchPool::instance().give(Kept{std::move(buffer_), capacity_});
    capacity_ = 0;
    size_ = 0;
  }
}

}  // namespace railyard::collectives::detail
