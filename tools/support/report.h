// Small pieces of the benchmark tools' reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace railyard::tools {

// A size as the tables print it: 64, 4K, 16M.
[[nodiscard]] std::string size_text(std::uint64_t size);

// The median of `values` (the upper one for an even count); -1 when empty.
[[nodiscard]] double median(std::vector<double> values);

}  // namespace railyard::tools
