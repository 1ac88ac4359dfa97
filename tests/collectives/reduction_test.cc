// The reduction kernels against a scalar reference, the half and bfloat16
// conversions, and the pairing check.
#include "railyard/collectives/reduction.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "railyard/common/error.h"

namespace railyard::collectives {
namespace {

TEST(HalfConversion, EveryHalfSurvivesTheTripThroughFloat) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto half = static_cast<std::uint16_t>(bits);
    const float wide = half_to_float(half);
    if (std::isnan(wide)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(wide)))) << bits;
      continue;
    }
    EXPECT_EQ(float_to_half(wide), half) << "half bits " << bits;
  }
}

TEST(HalfConversion, KnownValuesAndRoundingToNearestEven) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0F);
  EXPECT_EQ(half_to_float(0xC000), -2.0F);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0F);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0F, -24));  // smallest subnormal
  EXPECT_EQ(float_to_half(1.0F), 0x3C00);
  // 1 + 2^-11 lies halfway between 1 and the next half (1 + 2^-10): to even.
  EXPECT_EQ(float_to_half(1.0F + std::ldexp(1.0F, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 and 1 + 2^-9: to even.
  EXPECT_EQ(float_to_half(1.0F + 3 * std::ldexp(1.0F, -11)), 0x3C02);
  EXPECT_EQ(float_to_half(65520.0F), 0x7C00);               // rounds past the largest: infinity
  EXPECT_EQ(float_to_half(std::ldexp(1.0F, -25)), 0x0000);  // halfway to the smallest: to even
  EXPECT_EQ(float_to_half(std::ldexp(1.5F, -25)), 0x0001);
}

TEST(Bfloat16Conversion, RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(float_to_bfloat16(1.0F), 0x3F80);
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0F);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even (1).
  EXPECT_EQ(float_to_bfloat16(1.0F + std::ldexp(1.0F, -8)), 0x3F80);
  EXPECT_EQ(float_to_bfloat16(1.0F + 3 * std::ldexp(1.0F, -8)), 0x3F82);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const float wide = bfloat16_to_float(static_cast<std::uint16_t>(bits));
    if (!std::isnan(wide)) {
      EXPECT_EQ(float_to_bfloat16(wide), bits);
    }
  }
}

// The reference: one element at a time, as the operation is defined.
template <typename T>
T reference(ReduceOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case ReduceOp::kSum:
        return static_cast<T>(
            static_cast<U>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)));
      case ReduceOp::kProd:
        return static_cast<T>(
            static_cast<U>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)));
      case ReduceOp::kMin:
        return a < b ? a : b;
      case ReduceOp::kMax:
        return a < b ? b : a;
      case ReduceOp::kBand:
        return static_cast<T>(a & b);
      case ReduceOp::kBor:
        return static_cast<T>(a | b);
      case ReduceOp::kBxor:
        return static_cast<T>(a ^ b);
    }
  } else {
    switch (op) {
      case ReduceOp::kSum:
        return a + b;
      case ReduceOp::kProd:
        return a * b;
      case ReduceOp::kMin:
        return a < b ? a : b;
      case ReduceOp::kMax:
        return a < b ? b : a;
      default:
        break;
    }
  }
  return T{};
}

template <typename T>
void expect_matches_reference(DataType type) {
  std::mt19937_64 random(42);
  constexpr std::size_t kCount = 1003;  // not a multiple of any vector width
  for (const ReduceOp op : kAllReduceOps) {
    if (is_bitwise(op) && !is_integer(type)) {
      continue;
    }
    std::vector<T> left(kCount);
    std::vector<T> right(kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
      if constexpr (std::is_integral_v<T>) {
        left[i] = static_cast<T>(random());
        right[i] = static_cast<T>(random());
      } else {
        left[i] = static_cast<T>(static_cast<double>(random() % 2001) / 8.0 - 125.0);
        right[i] = static_cast<T>(static_cast<double>(random() % 2001) / 8.0 - 125.0);
      }
    }
    std::vector<T> apart(kCount);
    reduce(type, op, apart.data(), left.data(), right.data(), kCount);
    std::vector<T> into_left = left;
    reduce(type, op, into_left.data(), into_left.data(), right.data(), kCount);
    std::vector<T> into_right = right;
    reduce(type, op, into_right.data(), left.data(), into_right.data(), kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
      const T expected = reference(op, left[i], right[i]);
      ASSERT_EQ(apart[i], expected) << to_string(type) << " " << to_string(op) << " at " << i;
      ASSERT_EQ(into_left[i], expected) << to_string(type) << " " << to_string(op);
      ASSERT_EQ(into_right[i], expected) << to_string(type) << " " << to_string(op);
    }
  }
}

TEST(Reduce, EveryIntegerAndFloatTypeMatchesTheReferenceInEveryShape) {
  expect_matches_reference<std::int8_t>(DataType::kInt8);
  expect_matches_reference<std::int16_t>(DataType::kInt16);
  expect_matches_reference<std::int32_t>(DataType::kInt32);
  expect_matches_reference<std::int64_t>(DataType::kInt64);
  expect_matches_reference<std::uint8_t>(DataType::kUint8);
  expect_matches_reference<std::uint16_t>(DataType::kUint16);
  expect_matches_reference<std::uint32_t>(DataType::kUint32);
  expect_matches_reference<std::uint64_t>(DataType::kUint64);
  expect_matches_reference<float>(DataType::kFloat32);
  expect_matches_reference<double>(DataType::kFloat64);
}

TEST(Reduce, HalfAndBfloat16AreComputedInFloatAndRoundedBack) {
  const std::vector<float> a{1.0F, 0.5F, -3.25F, 1000.0F, 2.0F};
  const std::vector<float> b{2.0F, 0.25F, 1.0F, 24.0F, 1.0F + std::ldexp(1.0F, -10)};
  for (const bool bf16 : {false, true}) {
    const auto narrow = [&](float v) { return bf16 ? float_to_bfloat16(v) : float_to_half(v); };
    const auto widen = [&](std::uint16_t v) {
      return bf16 ? bfloat16_to_float(v) : half_to_float(v);
    };
    std::vector<std::uint16_t> left;
    std::vector<std::uint16_t> right;
    for (std::size_t i = 0; i < a.size(); ++i) {
      left.push_back(narrow(a[i]));
      right.push_back(narrow(b[i]));
    }
    const DataType type = bf16 ? DataType::kBfloat16 : DataType::kFloat16;
    for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax}) {
      std::vector<std::uint16_t> out(a.size());
      reduce(type, op, out.data(), left.data(), right.data(), a.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        const std::uint16_t expected = narrow(reference(op, widen(left[i]), widen(right[i])));
        EXPECT_EQ(out[i], expected) << to_string(type) << " " << to_string(op) << " at " << i;
      }
    }
  }
}

TEST(Reduce, FloatMinAndMaxGiveTheSameBitsWhicheverOperandIsLeft) {
  const auto nan_a = std::bit_cast<float>(0x7FC00001U);
  const auto nan_b = std::bit_cast<float>(0x7FC00002U);
  const std::vector<float> x{0.0F, -0.0F, nan_a, 1.0F, nan_a, -1.0F};
  const std::vector<float> y{-0.0F, 0.0F, 2.0F, nan_b, nan_b, -1.0F};
  for (const ReduceOp op : {ReduceOp::kMin, ReduceOp::kMax}) {
    std::vector<float> xy(x.size());
    std::vector<float> yx(x.size());
    reduce(DataType::kFloat32, op, xy.data(), x.data(), y.data(), x.size());
    reduce(DataType::kFloat32, op, yx.data(), y.data(), x.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(xy[i]), std::bit_cast<std::uint32_t>(yx[i]))
          << to_string(op) << " at " << i;
    }
    EXPECT_EQ(std::signbit(xy[0]), op == ReduceOp::kMin);  // -0 below +0
    EXPECT_TRUE(std::isnan(xy[2]) && std::isnan(xy[3]));   // a NaN wins
    EXPECT_EQ(std::bit_cast<std::uint32_t>(xy[4]), 0x7FC00002U);
  }
}

TEST(Pairing, ABitwiseOperationOnAFloatTypeIsAnErrorNamingBoth) {
  try {
    check_pairing(DataType::kFloat32, ReduceOp::kBxor, "allreduce");
    ADD_FAILURE() << "bxor on float was accepted";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("allreduce"), std::string::npos) << message;
    EXPECT_NE(message.find("bxor"), std::string::npos) << message;
    EXPECT_NE(message.find("float"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(check_pairing(DataType::kInt8, ReduceOp::kBand, "allreduce"));
  EXPECT_NO_THROW(check_pairing(DataType::kBfloat16, ReduceOp::kMax, "allreduce"));
}

TEST(DataTypeNames, EveryNameLeadsBackToItsType) {
  for (const DataType type : kAllDataTypes) {
    EXPECT_EQ(data_type_named(to_string(type)), type);
  }
  for (const ReduceOp op : kAllReduceOps) {
    EXPECT_EQ(reduce_op_named(to_string(op)), op);
  }
  EXPECT_EQ(data_type_named("float32"), DataType::kFloat32);
  EXPECT_EQ(data_type_named("quad"), std::nullopt);
  EXPECT_EQ(reduce_op_named("avg"), std::nullopt);
  EXPECT_EQ(size_of(DataType::kBfloat16), 2U);
  EXPECT_EQ(size_of(DataType::kInt64), 8U);
}

}  // namespace
}  // namespace railyard::collectives
