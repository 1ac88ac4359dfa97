#include "railyard/torch/staging.h"

#include <ATen/ATen.h>

#include <cstdint>

namespace railyard::pytorch {

std::size_t element_count(const at::Tensor& tensor) {
  return static_cast<std::size_t>(tensor.numel());
}

at::Tensor contiguous_buffer(const at::Tensor& tensor) { return tensor.contiguous(); }

void write_back(const at::Tensor& buffer, at::Tensor& tensor) {
  if (!buffer.is_same(tensor)) {
    tensor.copy_(buffer);
  }
}

at::Tensor flatten(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> rows;
  rows.reserve(tensors.size());
  for (const at::Tensor& tensor : tensors) {
    rows.push_back(tensor.reshape({-1}));
  }
  return at::cat(rows);
}

at::Tensor flat_like(const std::vector<at::Tensor>& tensors) {
  std::int64_t elements = 0;
  for (const at::Tensor& tensor : tensors) {
    elements += tensor.numel();
  }
  return at::empty({elements}, tensors.front().options());
}

void unflatten(const at::Tensor& flat, std::vector<at::Tensor>& tensors) {
  std::int64_t offset = 0;
  for (at::Tensor& tensor : tensors) {
    tensor.copy_(flat.narrow(0, offset, tensor.numel()).view(tensor.sizes()));
    offset += tensor.numel();
  }
}

}  // namespace railyard::pytorch
