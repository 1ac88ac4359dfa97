// The bounds of an eager fragment's payload: checked where the options are
// read from the environment and again where an endpoint is built from them.
#pragma once

#include <cstdint>

namespace railyard::mrail::detail {

inline constexpr std::uint32_t kMinFragmentSize = 1024;
inline constexpr std::uint32_t kMaxFragmentSize = std::uint32_t{16} << 20;

}  // namespace railyard::mrail::detail
