// How torch's element types and reduction operations map onto railyard's,
// and the checks every operation makes of the tensors it is given: CPU,
// dense, a type railyard carries, an operation that can reduce it. A bad
// tensor is a c10::Error (RuntimeError in Python) naming the operation,
// the type and the device.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <cstddef>
#include <vector>

#include "railyard/collectives/datatype.h"

namespace railyard::pytorch {

// The railyard type that carries `tensor`'s elements (bool as uint8).
// Throws c10::Error naming `op` for a tensor on another device than the
// CPU, a sparse one, or a type railyard does not carry (complex, the
// quantized types).
[[nodiscard]] collectives::DataType data_type_of(const at::Tensor& tensor, const char* op);

// data_type_of's checks alone, for a tensor whose type another one gives.
void check_tensor(const at::Tensor& tensor, const char* op);

// What a reduction does on railyard: the operation, and whether the result
// is then divided by the group's size (AVG).
struct Reduction {
  collectives::ReduceOp op = collectives::ReduceOp::kSum;
  bool average = false;
};

// The railyard reduction for torch's `op` on `type`. Booleans reduce as
// logical operations (SUM and MAX: or; PRODUCT and MIN: and), as NCCL
// does. Throws c10::Error naming `what` for PREMUL_SUM, a bitwise
// operation on a floating-point type, or AVG on booleans.
[[nodiscard]] Reduction reduction_for(const c10d::ReduceOp& op, at::ScalarType type,
                                      const char* what);

// Checks that every tensor of `tensors` (at least one) has the first one's
// type and element count; c10::Error naming `what` otherwise. Returns the
// type.
collectives::DataType check_same_kind(const std::vector<at::Tensor>& tensors, const char* what);

// Checks that `tensors` holds exactly `expected` tensors (one per rank, or
// one); c10::Error naming `what` otherwise.
void check_count(const std::vector<at::Tensor>& tensors, std::size_t expected, const char* what,
                 const char* which);

// "float32 [4, 8] on cpu" for messages.
[[nodiscard]] std::string describe(const at::Tensor& tensor);

}  // namespace railyard::pytorch
