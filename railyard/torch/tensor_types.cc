#include "railyard/torch/tensor_types.h"

#include <c10/util/Exception.h>

#include <sstream>

namespace railyard::pytorch {

using collectives::DataType;
using collectives::ReduceOp;

std::string describe(const at::Tensor& tensor) {
  std::ostringstream out;
  out << tensor.scalar_type() << " " << tensor.sizes() << " on " << tensor.device();
  return out.str();
}

DataType data_type_of(const at::Tensor& tensor, const char* op) {
  TORCH_CHECK(tensor.device().is_cpu(), "railyard ", op, ": a tensor on ", tensor.device(), " (",
              describe(tensor), "); the railyard backend carries CPU tensors only: ",
              "move it with .cpu(), or use nccl for GPU tensors");
  TORCH_CHECK(tensor.layout() == c10::kStrided, "railyard ", op, ": a ", tensor.layout(),
              " tensor; the railyard backend carries dense (strided) tensors only");
  switch (tensor.scalar_type()) {
    case at::kBool:
    case at::kByte:
      return DataType::kUint8;
    case at::kChar:
      return DataType::kInt8;
    case at::kShort:
      return DataType::kInt16;
    case at::kInt:
      return DataType::kInt32;
    case at::kLong:
      return DataType::kInt64;
    case at::kHalf:
      return DataType::kFloat16;
    case at::kBFloat16:
      return DataType::kBfloat16;
    case at::kFloat:
      return DataType::kFloat32;
    case at::kDouble:
      return DataType::kFloat64;
    default:
      TORCH_CHECK(false, "railyard ", op, ": element type ", tensor.scalar_type(),
                  " is not carried; the railyard backend carries bool, uint8, int8, int16, ",
                  "int32, int64, float16, bfloat16, float32 and float64");
  }
}

void check_tensor(const at::Tensor& tensor, const char* op) { (void)data_type_of(tensor, op); }

Reduction reduction_for(const c10d::ReduceOp& op, at::ScalarType type, const char* what) {
  const bool boolean = type == at::kBool;
  const bool floating = at::isFloatingType(type);
  switch (op.op_) {
    case c10d::ReduceOp::SUM:
      return {boolean ? ReduceOp::kMax : ReduceOp::kSum, false};
    case c10d::ReduceOp::AVG:
      TORCH_CHECK(!boolean, "railyard ", what, ": AVG cannot reduce bool tensors");
      return {ReduceOp::kSum, true};
    case c10d::ReduceOp::PRODUCT:
      return {boolean ? ReduceOp::kMin : ReduceOp::kProd, false};
    case c10d::ReduceOp::MIN:
      return {ReduceOp::kMin, false};
    case c10d::ReduceOp::MAX:
      return {ReduceOp::kMax, false};
    case c10d::ReduceOp::BAND:
    case c10d::ReduceOp::BOR:
    case c10d::ReduceOp::BXOR: {
      TORCH_CHECK(!floating, "railyard ", what, ": a bitwise reduction cannot reduce ", type,
                  " tensors; it takes integer and bool tensors");
      if (op.op_ == c10d::ReduceOp::BAND) {
        return {ReduceOp::kBand, false};
      }
      return {op.op_ == c10d::ReduceOp::BOR ? ReduceOp::kBor : ReduceOp::kBxor, false};
    }
    default:
      TORCH_CHECK(false, "railyard ", what, ": reduction ", static_cast<int>(op.op_),
                  " (PREMUL_SUM or another) is not supported; use SUM, AVG, PRODUCT, MIN, MAX, ",
                  "BAND, BOR or BXOR");
  }
}

DataType check_same_kind(const std::vector<at::Tensor>& tensors, const char* what) {
  TORCH_CHECK(!tensors.empty(), "railyard ", what, ": no tensors given");
  const at::Tensor& first = tensors.front();
  const DataType type = data_type_of(first, what);
  for (std::size_t i = 1; i < tensors.size(); ++i) {
    const at::Tensor& other = tensors[i];
    check_tensor(other, what);
    TORCH_CHECK(other.scalar_type() == first.scalar_type() && other.numel() == first.numel(),
                "railyard ", what, ": tensor ", i, " is ", describe(other), " but tensor 0 is ",
                describe(first), "; they must have the same type and number of elements");
  }
  return type;
}

void check_count(const std::vector<at::Tensor>& tensors, std::size_t expected, const char* what,
                 const char* which) {
  TORCH_CHECK(tensors.size() == expected, "railyard ", what, ": ", which, " holds ", tensors.size(),
              " tensors, expected ", expected);
}

}  // namespace railyard::pytorch
