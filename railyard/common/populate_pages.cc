#include "railyard/common/detail/populate_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace railyard {
namespace {

// MADV_POPULATE_WRITE (Linux 5.14), for C libraries whose headers predate it.
#ifdef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;
#endif

}  // namespace

bool populate_pages(const void* address, std::size_t bytes) noexcept {
  if (address == nullptr || bytes == 0) {
    return false;
  }
  // Every page holding a byte of the range is mapped, so the range rounded
  // out to whole pages is too.
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<std::uintptr_t>(address) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(address) + bytes + page - 1) & ~(page - 1);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the page holding `address`
  return ::madvise(reinterpret_cast<void*>(first), end - first, kPopulateWrite) == 0;
}

}  // namespace railyard
