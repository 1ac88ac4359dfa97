// The class torch dispatches a group's calls to: c10d::ProcessGroup in
// torch 1.x, c10d::Backend (for the CPU device) from torch 2.0. Both take
// the same calls with the same arguments, so one adapter over either hands
// them to the group's operations (group.h); only the module picks which.
#pragma once

#include <torch/version.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "railyard/torch/group.h"

namespace railyard::pytorch {

template <typename Base>
class RailyardProcessGroup final : public Base {
 public:
  explicit RailyardProcessGroup(std::shared_ptr<Group> group)
      : Base(group->rank(), group->size()), group_(std::move(group)) {}

  [[nodiscard]] const std::shared_ptr<Group>& group() const noexcept { return group_; }

  // Torch's own text for the backend (DDP's logs; get_backend() reads its
  // registry instead).
  const std::string getBackendName() const override {
    return "railyard";
  }  // NOLINT(readability-const-return-type): torch's signature

  using WorkPtr = c10::intrusive_ptr<c10d::Work>;

  WorkPtr broadcast(std::vector<at::Tensor>& tensors,
                    const c10d::BroadcastOptions& options) override {
    return group_->broadcast(tensors, options);
  }
  WorkPtr allreduce(std::vector<at::Tensor>& tensors,
                    const c10d::AllreduceOptions& options) override {
    return group_->allreduce(tensors, options);
  }
  WorkPtr allreduce_coalesced(std::vector<at::Tensor>& tensors,
                              const c10d::AllreduceCoalescedOptions& options) override {
    return group_->allreduce_coalesced(tensors, options);
  }
  WorkPtr reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& options) override {
    return group_->reduce(tensors, options);
  }
  WorkPtr allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                    const c10d::AllgatherOptions& options) override {
    return group_->allgather(outputs, inputs, options);
  }
  WorkPtr _allgather_base(at::Tensor& output,
                          at::Tensor& input,  // NOLINT(readability-identifier-naming): torch's name
                          const c10d::AllgatherOptions& options) override {
    return group_->allgather_base(output, input, options);
  }
  WorkPtr gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                 const c10d::GatherOptions& options) override {
    return group_->gather(outputs, inputs, options);
  }
  WorkPtr scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                  const c10d::ScatterOptions& options) override {
    return group_->scatter(outputs, inputs, options);
  }
  WorkPtr reduce_scatter(std::vector<at::Tensor>& outputs,
                         std::vector<std::vector<at::Tensor>>& inputs,
                         const c10d::ReduceScatterOptions& options) override {
    return group_->reduce_scatter(outputs, inputs, options);
  }
  WorkPtr _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input,  // NOLINT(readability-identifier-naming): torch's name
      const c10d::ReduceScatterOptions& options) override {
    return group_->reduce_scatter_base(output, input, options);
  }
  WorkPtr alltoall_base(at::Tensor& output, at::Tensor& input,
                        std::vector<std::int64_t>& output_splits,
                        std::vector<std::int64_t>& input_splits,
                        const c10d::AllToAllOptions& options) override {
    return group_->alltoall_base(output, input, output_splits, input_splits, options);
  }
  WorkPtr alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                   const c10d::AllToAllOptions& options) override {
    return group_->alltoall(outputs, inputs, options);
  }
  WorkPtr barrier(const c10d::BarrierOptions& options) override { return group_->barrier(options); }
  WorkPtr send(std::vector<at::Tensor>& tensors, int destination, int tag) override {
    return group_->send(tensors, destination, tag);
  }
  WorkPtr recv(std::vector<at::Tensor>& tensors, int source, int tag) override {
    return group_->recv(tensors, source, tag);
  }
  WorkPtr recvAnysource(std::vector<at::Tensor>& tensors, int tag) override {
    return group_->recv_any_source(tensors, tag);
  }

 private:
  std::shared_ptr<Group> group_;
};

// What torch dispatches to, for the torch this is built against.
#if TORCH_VERSION_MAJOR >= 2
using DispatchedGroup = c10d::Backend;
#else
using DispatchedGroup = c10d::ProcessGroup;
#endif

}  // namespace railyard::pytorch
