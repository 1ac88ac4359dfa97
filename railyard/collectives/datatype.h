// The element types and reduction operations of the collectives, with the
// names tools and variables use for them (nccl-tests' where it has one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace railyard::collectives {

enum class DataType : std::uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kFloat16,   // IEEE 754 binary16
  kBfloat16,  // the upper half of a binary32
  kFloat32,
  kFloat64,
};

enum class ReduceOp : std::uint8_t { kSum, kProd, kMin, kMax, kBand, kBor, kBxor };

inline constexpr DataType kAllDataTypes[] = {
    DataType::kInt8,    DataType::kInt16,    DataType::kInt32,   DataType::kInt64,
    DataType::kUint8,   DataType::kUint16,   DataType::kUint32,  DataType::kUint64,
    DataType::kFloat16, DataType::kBfloat16, DataType::kFloat32, DataType::kFloat64};
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin,
                                             ReduceOp::kMax, ReduceOp::kBand, ReduceOp::kBor,
                                             ReduceOp::kBxor};

// Bytes per element.
[[nodiscard]] std::size_t size_of(DataType type) noexcept;
// "int8" ... "uint64", "half", "bfloat16", "float", "double".
[[nodiscard]] std::string_view to_string(DataType type) noexcept;
// "sum", "prod", "min", "max", "band", "bor", "bxor".
[[nodiscard]] std::string_view to_string(ReduceOp op) noexcept;
// The type or operation a name gives (the names above; also "float16",
// "float32", "float64"), nullopt for any other.
[[nodiscard]] std::optional<DataType> data_type_named(std::string_view name) noexcept;
[[nodiscard]] std::optional<ReduceOp> reduce_op_named(std::string_view name) noexcept;

[[nodiscard]] bool is_integer(DataType type) noexcept;
[[nodiscard]] bool is_bitwise(ReduceOp op) noexcept;
// Throws UsageError naming both when `op` cannot reduce `type` (a bitwise
// operation on a floating-point type); `what` names the call.
void check_pairing(DataType type, ReduceOp op, const char* what);

}  // namespace railyard::collectives
