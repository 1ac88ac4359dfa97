// Tensors as the contiguous buffers railyard's calls take: a contiguous
// tensor is used as it is; any other (a transposed view, a slice with
// strides, an expanded tensor) through a contiguous copy written back
// afterwards; lists of tensors back to back in one buffer.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace railyard::pytorch {

// A tensor's element count as railyard's calls take it.
[[nodiscard]] std::size_t element_count(const at::Tensor& tensor);
// Copies `buffer` into `tensor` when it is a copy (not the tensor itself).
void write_back(const at::Tensor& buffer, at::Tensor& tensor);
// The elements of `flat` back into `tensors`, in order.
void unflatten(const at::Tensor& flat, std::vector<at::Tensor>& tensors);

// Buffers for the copies an operation stages (lists of tensors back to
// back), kept for later operations: a fresh buffer of a few MiB costs a
// page fault a page on first touch, which took longer than carrying it
// over four 1 Gbit/s rails (an 8 MiB all_gather 28 ms, against 9 ms).
// A buffer is free again when nothing holds a tensor over it.
class StagingPool {
 public:
  // `tensor` when contiguous, else a contiguous copy of it in a buffer of
  // the pool (write_back copies results into the tensor).
  [[nodiscard]] at::Tensor contiguous(const at::Tensor& tensor);
  // A one-dimensional tensor of `elements` of `like`'s type, uninitialized.
  [[nodiscard]] at::Tensor take(std::int64_t elements, const at::Tensor& like);
  // `tensors` (same type) back to back in a buffer of the pool.
  [[nodiscard]] at::Tensor flatten(const std::vector<at::Tensor>& tensors);
  // A buffer of the pool to flatten `tensors` into later.
  [[nodiscard]] at::Tensor flat_like(const std::vector<at::Tensor>& tensors);

 private:
  // Free buffers past these are let go.
  static constexpr std::size_t kMaxBuffers = 8;
  static constexpr std::int64_t kMaxBytes = std::int64_t{1} << 30;

  std::mutex mutex_;
  std::vector<at::Tensor> buffers_;  // bytes
};

}  // namespace railyard::pytorch
