// The element-wise reduction kernels of the collectives.
#pragma once

#include <cstddef>
#include <cstdint>

#include "railyard/collectives/datatype.h"

namespace railyard::collectives {

// out[i] = left[i] op right[i] for `count` elements of `type`. `out` may be
// `left` or `right` (the same address, not an overlap at an offset).
// Integers wrap around as unsigned arithmetic does; half and bfloat16 are
// computed in float and rounded back to nearest, ties to even. Min and max
// of floating-point values are symmetric: the result is the same bits
// whichever operand is left (-0 is below +0; a NaN wins, the larger bit
// pattern of two), so ranks that reduce the same pair in either order agree.
// The pairing must be valid (check_pairing).
void reduce(DataType type, ReduceOp op, void* out, const void* left, const void* right,
            std::size_t count) noexcept;

// Conversions between half / bfloat16 and float (round to nearest even).
[[nodiscard]] float half_to_float(std::uint16_t bits) noexcept;
[[nodiscard]] std::uint16_t float_to_half(float value) noexcept;
[[nodiscard]] float bfloat16_to_float(std::uint16_t bits) noexcept;
[[nodiscard]] std::uint16_t float_to_bfloat16(float value) noexcept;

}  // namespace railyard::collectives
