// Working memory of the collective algorithms (partial sums, blocks in
// transit), taken from a pool the process keeps. A fresh buffer of tens of
// megabytes is fresh pages from the kernel: every page faults in and is
// zeroed, and the pages go back when it is freed, so a large reduce-scatter
// spent most of its time in page faults and memset. Reused buffers are
// already mapped, and nothing fills them.
#pragma once

#include <cstddef>
#include <memory>

namespace railyard::collectives::detail {

// `bytes` of uninitialised memory, at least, until destroyed; then the
// buffer goes back to the pool (which keeps at most kScratchKeptBuffers
// buffers, kScratchKeptBytes bytes in all, dropping the smallest first).
class Scratch {
 public:
  Scratch() = default;
  explicit Scratch(std::size_t bytes);
  // A scratch buffer holding a copy of [from, from + bytes).
  static Scratch copy_of(const std::byte* from, std::size_t bytes);
  ~Scratch();
  Scratch(Scratch&& other) noexcept;
  Scratch& operator=(Scratch&& other) noexcept;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  [[nodiscard]] std::byte* data() const noexcept { return buffer_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  void give_back() noexcept;

  std::unique_ptr<std::byte[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

inline constexpr std::size_t kScratchKeptBuffers = 8;
inline constexpr std::size_t kScratchKeptBytes = std::size_t{1} << 30;

}  // namespace railyard::collectives::detail
