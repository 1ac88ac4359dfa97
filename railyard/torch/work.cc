#include "railyard/torch/work.h"

#include <ATen/core/jit_type.h>

#include <utility>

namespace railyard::pytorch {

Work::Work(int rank, c10d::OpType type, std::vector<at::Tensor> outputs)
    : c10d::Work(rank, type),
      outputs_(std::move(outputs)),
      future_(
          c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {
}

void Work::complete(int source) {
  {
    const std::scoped_lock lock(mutex_);
    source_ = source;
  }
  finish();
  future_->markCompleted(c10::IValue(outputs_));
}

void Work::fail(std::exception_ptr error) {
  finish(error);
  future_->setError(std::move(error));
}

int Work::sourceRank() const {
  const std::scoped_lock lock(mutex_);
  return source_;
}

std::vector<at::Tensor> Work::result() { return outputs_; }

c10::intrusive_ptr<c10::ivalue::Future> Work::getFuture() { return future_; }

}  // namespace railyard::pytorch
