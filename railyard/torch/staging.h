// Tensors as the contiguous buffers railyard's calls take: a contiguous
// tensor is used as it is; any other (a transposed view, a slice with
// strides, an expanded tensor) through a contiguous copy written back
// afterwards; lists of tensors back to back in one buffer.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <vector>

namespace railyard::pytorch {

// A tensor's element count as railyard's calls take it.
[[nodiscard]] std::size_t element_count(const at::Tensor& tensor);
// `tensor` when contiguous, else a contiguous copy of it.
[[nodiscard]] at::Tensor contiguous_buffer(const at::Tensor& tensor);
// Copies `buffer` into `tensor` when it is a copy (not the tensor itself).
void write_back(const at::Tensor& buffer, at::Tensor& tensor);
// Same-typed tensors' elements back to back in one new one-dimensional
// tensor.
[[nodiscard]] at::Tensor flatten(const std::vector<at::Tensor>& tensors);
// An empty one-dimensional tensor to flatten `tensors` into later.
[[nodiscard]] at::Tensor flat_like(const std::vector<at::Tensor>& tensors);
// The elements of `flat` back into `tensors`, in order.
void unflatten(const at::Tensor& flat, std::vector<at::Tensor>& tensors);

}  // namespace railyard::pytorch
