#include "railyard/torch/staging.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>

namespace railyard::pytorch {

std::size_t element_count(const at::Tensor& tensor) {
  return static_cast<std::size_t>(tensor.numel());
}

void write_back(const at::Tensor& buffer, at::Tensor& tensor) {
  if (!buffer.is_same(tensor)) {
    tensor.copy_(buffer);
  }
}

void unflatten(const at::Tensor& flat, std::vector<at::Tensor>& tensors) {
  std::int64_t offset = 0;
  for (at::Tensor& tensor : tensors) {
    tensor.copy_(flat.narrow(0, offset, tensor.numel()).view(tensor.sizes()));
    offset += tensor.numel();
  }
}

namespace {

std::int64_t elements_of(const std::vector<at::Tensor>& tensors) {
  std::int64_t elements = 0;
  for (const at::Tensor& tensor : tensors) {
    elements += tensor.numel();
  }
  return elements;
}

}  // namespace

at::Tensor StagingPool::take(std::int64_t elements, const at::Tensor& like) {
  const std::int64_t bytes = std::max<std::int64_t>(elements * like.element_size(), 1);
  const auto carve = [&](const at::Tensor& buffer) {
    return buffer.narrow(0, 0, elements * like.element_size()).view(like.scalar_type());
  };
  const std::scoped_lock lock(mutex_);
  // The smallest free buffer that fits, and not twice too large.
  at::Tensor* best = nullptr;
  for (at::Tensor& buffer : buffers_) {
    const bool free = buffer.storage().use_count() == 1;
    if (free && buffer.numel() >= bytes && buffer.numel() <= 2 * bytes + 4096 &&
        (best == nullptr || buffer.numel() < best->numel())) {
      best = &buffer;
    }
  }
  if (best != nullptr) {
    return carve(*best);
  }
  // Make room: free buffers go, the largest first, past the pool's bounds.
  std::int64_t held = bytes;
  for (const at::Tensor& buffer : buffers_) {
    held += buffer.numel();
  }
  std::sort(buffers_.begin(), buffers_.end(),
            [](const at::Tensor& a, const at::Tensor& b) { return a.numel() > b.numel(); });
  for (auto it = buffers_.begin();
       it != buffers_.end() && (buffers_.size() >= kMaxBuffers || held > kMaxBytes);) {
    if (it->storage().use_count() == 1) {
      held -= it->numel();
      it = buffers_.erase(it);
    } else {
      ++it;
    }
  }
  buffers_.push_back(at::empty({bytes}, like.options().dtype(at::kByte)));
  return carve(buffers_.back());
}

at::Tensor StagingPool::contiguous(const at::Tensor& tensor) {
  if (tensor.is_contiguous()) {
    return tensor;
  }
  at::Tensor copy = take(tensor.numel(), tensor).view(tensor.sizes());
  copy.copy_(tensor);
  return copy;
}

at::Tensor StagingPool::flatten(const std::vector<at::Tensor>& tensors) {
  at::Tensor flat = take(elements_of(tensors), tensors.front());
  std::int64_t offset = 0;
  for (const at::Tensor& tensor : tensors) {
    flat.narrow(0, offset, tensor.numel()).view(tensor.sizes()).copy_(tensor);
    offset += tensor.numel();
  }
  return flat;
}

at::Tensor StagingPool::flat_like(const std::vector<at::Tensor>& tensors) {
  return take(elements_of(tensors), tensors.front());
}

}  // namespace railyard::pytorch
