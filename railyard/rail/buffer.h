// A span of memory handed to a data transfer, with its local registration
// descriptor when the provider needs one (FI_MR_LOCAL).
#pragma once

#include <cstddef>

namespace railyard::rail {

struct ConstBuffer {
  const void* data = nullptr;
  std::size_t size = 0;
  void* descriptor = nullptr;
};

struct MutableBuffer {
  void* data = nullptr;
  std::size_t size = 0;
  void* descriptor = nullptr;

  // NOLINTNEXTLINE(google-explicit-constructor): a writable buffer is readable too.
  operator ConstBuffer() const noexcept { return ConstBuffer{data, size, descriptor}; }
};

}  // namespace railyard::rail
