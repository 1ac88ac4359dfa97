// What an operation of the railyard process group returns to torch: a
// c10d::Work that completes, with its output tensors or an error, when the
// railyard requests behind it finish, and the future DDP's reducer and
// communication hooks chain on (getFuture()).
#pragma once

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <exception>
#include <vector>

namespace railyard::pytorch {

class Work final : public c10d::Work {
 public:
  // `outputs`: what result() and the future's value hold once it completes.
  Work(int rank, c10d::OpType type, std::vector<at::Tensor> outputs);

  // Marks it done: waiters return, then the future's callbacks run (in
  // this thread). `source` is the sender of a receive from any rank.
  void complete(int source = -1);
  // Marks it failed with `error`: wait() and the future throw it.
  void fail(std::exception_ptr error);

  [[nodiscard]] int sourceRank() const override;
  std::vector<at::Tensor> result() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

 private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  int source_ = -1;
};

}  // namespace railyard::pytorch
