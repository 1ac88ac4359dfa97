#include "railyard/collectives/datatype.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "railyard/common/error.h"

namespace railyard::collectives {
namespace {

struct TypeInfo {
  DataType type;
  std::size_t size;
  std::string_view name;
};

constexpr std::array<TypeInfo, 12> kTypes{{
    {DataType::kInt8, 1, "int8"},
    {DataType::kInt16, 2, "int16"},
    {DataType::kInt32, 4, "int32"},
    {DataType::kInt64, 8, "int64"},
    {DataType::kUint8, 1, "uint8"},
    {DataType::kUint16, 2, "uint16"},
    {DataType::kUint32, 4, "uint32"},
    {DataType::kUint64, 8, "uint64"},
    {DataType::kFloat16, 2, "half"},
    {DataType::kBfloat16, 2, "bfloat16"},
    {DataType::kFloat32, 4, "float"},
    {DataType::kFloat64, 8, "double"},
}};

constexpr std::array<std::pair<ReduceOp, std::string_view>, 7> kOps{{
    {ReduceOp::kSum, "sum"},
    {ReduceOp::kProd, "prod"},
    {ReduceOp::kMin, "min"},
    {ReduceOp::kMax, "max"},
    {ReduceOp::kBand, "band"},
    {ReduceOp::kBor, "bor"},
    {ReduceOp::kBxor, "bxor"},
}};

// Indexed by the enumerators' values.
static_assert(kTypes[static_cast<std::size_t>(DataType::kFloat64)].type == DataType::kFloat64);
static_assert(kTypes[static_cast<std::size_t>(DataType::kUint8)].type == DataType::kUint8);
static_assert(kOps[static_cast<std::size_t>(ReduceOp::kBxor)].first == ReduceOp::kBxor);

const TypeInfo& info(DataType type) noexcept { return kTypes[static_cast<std::size_t>(type)]; }

}  // namespace

std::size_t size_of(DataType type) noexcept { return info(type).size; }

std::string_view to_string(DataType type) noexcept { return info(type).name; }

std::string_view to_string(ReduceOp op) noexcept {
  return kOps[static_cast<std::size_t>(op)].second;
}

std::optional<DataType> data_type_named(std::string_view name) noexcept {
  for (const auto& type : kTypes) {
    if (type.name == name) {
      return type.type;
    }
  }
  if (name == "float16") {
    return DataType::kFloat16;
  }
  if (name == "float32") {
    return DataType::kFloat32;
  }
  if (name == "float64") {
    return DataType::kFloat64;
  }
  return std::nullopt;
}

std::optional<ReduceOp> reduce_op_named(std::string_view name) noexcept {
  for (const auto& [op, op_name] : kOps) {
    if (op_name == name) {
      return op;
    }
  }
  return std::nullopt;
}

bool is_integer(DataType type) noexcept {
  return type != DataType::kFloat16 && type != DataType::kBfloat16 && type != DataType::kFloat32 &&
         type != DataType::kFloat64;
}

bool is_bitwise(ReduceOp op) noexcept {
  return op == ReduceOp::kBand || op == ReduceOp::kBor || op == ReduceOp::kBxor;
}

void check_pairing(DataType type, ReduceOp op, const char* what) {
  if (is_bitwise(op) && !is_integer(type)) {
    throw UsageError(
        fmt::format("{}: operation {} is bitwise and cannot reduce type {}; it takes "
                    "the integer types (int8 to uint64)",
                    what, to_string(op), to_string(type)));
  }
}

}  // namespace railyard::collectives
