#include "tools/support/report.h"

#include <algorithm>

#include <fmt/format.h>

namespace railyard::tools {

std::string size_text(std::uint64_t size) {
  if (size >= (1U << 20) && size % (1U << 20) == 0) {
    return fmt::format("{}M", size >> 20);
  }
  if (size >= 1024 && size % 1024 == 0) {
    return fmt::format("{}K", size >> 10);
  }
  return std::to_string(size);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? -1 : values[values.size() / 2];
}

}  // namespace railyard::tools
