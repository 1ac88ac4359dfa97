#include "railyard/collectives/reduction.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace railyard::collectives {

float half_to_float(std::uint16_t bits) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000U) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1FU;
  std::uint32_t mantissa = bits & 0x3FFU;
  std::uint32_t out = 0;
  if (exponent == 0x1F) {  // infinity or NaN (the payload kept)
    out = sign | 0x7F800000U | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {  // subnormal: normalise it
    std::uint32_t shift = 0;
    while ((mantissa & 0x400U) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    out = sign | ((113 - shift) << 23) | ((mantissa & 0x3FFU) << 13);
  } else {
    out = sign;
  }
  return std::bit_cast<float>(out);
}

std::uint16_t float_to_half(float value) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000U);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFU;
  if (magnitude >= 0x7F800000U) {  // infinity, or NaN kept quiet and non-zero
    const std::uint32_t payload = magnitude > 0x7F800000U ? (0x200U | (magnitude >> 13)) : 0;
    return static_cast<std::uint16_t>(sign | 0x7C00U | (payload & 0x3FFU));
  }
  if (magnitude >= 0x477FF000U) {  // rounds past the largest half: infinity
    return static_cast<std::uint16_t>(sign | 0x7C00U);
  }
  if (magnitude < 0x38800000U) {    // below the smallest normal half
    if (magnitude < 0x33000000U) {  // below half the smallest subnormal: zero
      return sign;
    }
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7FFFFFU) | 0x800000U;
    const std::uint32_t shift = 126 - exponent;  // 14..24
    std::uint32_t out = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1U << shift) - 1);
    const std::uint32_t halfway = 1U << (shift - 1);
    if (rest > halfway || (rest == halfway && (out & 1U) != 0)) {
      ++out;
    }
    return static_cast<std::uint16_t>(sign | out);
  }
  // Normal: rebias, then round the 13 dropped bits to nearest even (a carry
  // into the exponent is the right result).
  std::uint32_t out = magnitude - 0x38000000U;
  const std::uint32_t rest = out & 0x1FFFU;
  out >>= 13;
  if (rest > 0x1000U || (rest == 0x1000U && (out & 1U) != 0)) {
    ++out;
  }
  return static_cast<std::uint16_t>(sign | out);
}

float bfloat16_to_float(std::uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t float_to_bfloat16(float value) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFU) > 0x7F800000U) {  // NaN: keep it quiet
    return static_cast<std::uint16_t>((bits >> 16) | 0x40U);
  }
  const std::uint32_t rounding = 0x7FFFU + ((bits >> 16) & 1U);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

namespace {

// Floating-point min and max that give the same bits whichever operand is
// left: -0 is below +0, and a NaN wins (of two, the larger bit pattern).
template <typename Float, typename Bits>
Float symmetric_pick(Float a, Float b, bool want_min) noexcept {
  const bool a_nan = std::isnan(a);
  const bool b_nan = std::isnan(b);
  if (a_nan || b_nan) {
    if (a_nan && b_nan) {
      return std::bit_cast<Bits>(a) > std::bit_cast<Bits>(b) ? a : b;
    }
    return a_nan ? a : b;
  }
  if (a == b) {  // equal, or +0 and -0
    const bool a_negative = std::signbit(a);
    return (a_negative == want_min) ? a : b;
  }
  return ((a < b) == want_min) ? a : b;
}

template <typename Float>
Float float_min(Float a, Float b) noexcept {
  using Bits = std::conditional_t<sizeof(Float) == 4, std::uint32_t, std::uint64_t>;
  return symmetric_pick<Float, Bits>(a, b, true);
}

template <typename Float>
Float float_max(Float a, Float b) noexcept {
  using Bits = std::conditional_t<sizeof(Float) == 4, std::uint32_t, std::uint64_t>;
  return symmetric_pick<Float, Bits>(a, b, false);
}

// The element-wise loop, in the three shapes a caller gives: each with
// pointers the compiler may assume distinct, so that it vectorises the loop
// without a run-time overlap check.
template <typename T, typename Op>
void apply_into_left(T* __restrict inout, const T* __restrict right, std::size_t count, Op op) {
  for (std::size_t i = 0; i < count; ++i) {
    inout[i] = op(inout[i], right[i]);
  }
}

template <typename T, typename Op>
void apply_into_right(const T* __restrict left, T* __restrict inout, std::size_t count, Op op) {
  for (std::size_t i = 0; i < count; ++i) {
    inout[i] = op(left[i], inout[i]);
  }
}

template <typename T, typename Op>
void apply_apart(T* __restrict out, const T* __restrict left, const T* __restrict right,
                 std::size_t count, Op op) {
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = op(left[i], right[i]);
  }
}

template <typename T, typename Op>
void apply(void* out, const void* left, const void* right, std::size_t count, Op op) {
  auto* o = static_cast<T*>(out);
  const auto* l = static_cast<const T*>(left);
  const auto* r = static_cast<const T*>(right);
  if (o == l && o == r) {
    for (std::size_t i = 0; i < count; ++i) {
      o[i] = op(o[i], o[i]);
    }
  } else if (o == l) {
    apply_into_left(o, r, count, op);
  } else if (o == r) {
    apply_into_right(l, o, count, op);
  } else {
    apply_apart(o, l, r, count, op);
  }
}

template <typename Int>
void reduce_integer(ReduceOp op, void* out, const void* left, const void* right,
                    std::size_t count) noexcept {
  // Sums and products wrap: computed unsigned, where overflow is defined.
  using Unsigned = std::make_unsigned_t<Int>;
  switch (op) {
    case ReduceOp::kSum:
      apply<Int>(out, left, right, count, [](Int a, Int b) {
        return static_cast<Int>(
            static_cast<Unsigned>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b)));
      });
      return;
    case ReduceOp::kProd:
      apply<Int>(out, left, right, count, [](Int a, Int b) {
        // Promoted past int so that a 16-bit product cannot overflow int.
        using Wide = std::conditional_t<(sizeof(Unsigned) < sizeof(unsigned)), unsigned, Unsigned>;
        return static_cast<Int>(static_cast<Unsigned>(static_cast<Wide>(static_cast<Unsigned>(a)) *
                                                      static_cast<Wide>(static_cast<Unsigned>(b))));
      });
      return;
    case ReduceOp::kMin:
      apply<Int>(out, left, right, count, [](Int a, Int b) { return std::min(a, b); });
      return;
    case ReduceOp::kMax:
      apply<Int>(out, left, right, count, [](Int a, Int b) { return std::max(a, b); });
      return;
    case ReduceOp::kBand:
      apply<Int>(out, left, right, count, [](Int a, Int b) { return static_cast<Int>(a & b); });
      return;
    case ReduceOp::kBor:
      apply<Int>(out, left, right, count, [](Int a, Int b) { return static_cast<Int>(a | b); });
      return;
    case ReduceOp::kBxor:
      apply<Int>(out, left, right, count, [](Int a, Int b) { return static_cast<Int>(a ^ b); });
      return;
  }
}

template <typename Float>
void reduce_float(ReduceOp op, void* out, const void* left, const void* right,
                  std::size_t count) noexcept {
  switch (op) {
    case ReduceOp::kSum:
      apply<Float>(out, left, right, count, [](Float a, Float b) { return a + b; });
      return;
    case ReduceOp::kProd:
      apply<Float>(out, left, right, count, [](Float a, Float b) { return a * b; });
      return;
    case ReduceOp::kMin:
      apply<Float>(out, left, right, count, float_min<Float>);
      return;
    case ReduceOp::kMax:
      apply<Float>(out, left, right, count, float_max<Float>);
      return;
    default:
      return;  // bitwise: refused by check_pairing before
  }
}

// Half and bfloat16: each element widened to float, reduced, rounded back.
template <float (*Widen)(std::uint16_t) noexcept, std::uint16_t (*Narrow)(float) noexcept>
void reduce_short_float(ReduceOp op, void* out, const void* left, const void* right,
                        std::size_t count) noexcept {
  const auto in_float = [](auto combine) {
    return
        [combine](std::uint16_t a, std::uint16_t b) { return Narrow(combine(Widen(a), Widen(b))); };
  };
  switch (op) {
    case ReduceOp::kSum:
      apply<std::uint16_t>(out, left, right, count,
                           in_float([](float a, float b) { return a + b; }));
      return;
    case ReduceOp::kProd:
      apply<std::uint16_t>(out, left, right, count,
                           in_float([](float a, float b) { return a * b; }));
      return;
    case ReduceOp::kMin:
      apply<std::uint16_t>(out, left, right, count, in_float(float_min<float>));
      return;
    case ReduceOp::kMax:
      apply<std::uint16_t>(out, left, right, count, in_float(float_max<float>));
      return;
    default:
      return;
  }
}

}  // namespace

void reduce(DataType type, ReduceOp op, void* out, const void* left, const void* right,
            std::size_t count) noexcept {
  switch (type) {
    case DataType::kInt8:
      reduce_integer<std::int8_t>(op, out, left, right, count);
      return;
    case DataType::kInt16:
      reduce_integer<std::int16_t>(op, out, left, right, count);
      return;
    case DataType::kInt32:
      reduce_integer<std::int32_t>(op, out, left, right, count);
      return;
    case DataType::kInt64:
      reduce_integer<std::int64_t>(op, out, left, right, count);
      return;
    case DataType::kUint8:
      reduce_integer<std::uint8_t>(op, out, left, right, count);
      return;
    case DataType::kUint16:
      reduce_integer<std::uint16_t>(op, out, left, right, count);
      return;
    case DataType::kUint32:
      reduce_integer<std::uint32_t>(op, out, left, right, count);
      return;
    case DataType::kUint64:
      reduce_integer<std::uint64_t>(op, out, left, right, count);
      return;
    case DataType::kFloat16:
      reduce_short_float<half_to_float, float_to_half>(op, out, left, right, count);
      return;
    case DataType::kBfloat16:
      reduce_short_float<bfloat16_to_float, float_to_bfloat16>(op, out, left, right, count);
      return;
    case DataType::kFloat32:
      reduce_float<float>(op, out, left, right, count);
      return;
    case DataType::kFloat64:
      reduce_float<double>(op, out, left, right, count);
      return;
  }
}

}  // namespace railyard::collectives
