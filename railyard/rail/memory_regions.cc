#include "railyard/rail/memory_regions.h"

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard::rail {

MutableBuffer LocalRegion::slice(std::size_t offset, std::size_t length) const {
  if (offset > length_ || length > length_ - offset) {
    throw Error(fmt::format("slice [{}, +{}) falls outside the {}-byte registered region", offset,
                            length, length_));
  }
  return MutableBuffer{static_cast<std::byte*>(base_) + offset, length, descriptor_};
}

}  // namespace railyard::rail
