// The railyard process group's operations over one Communicator, the same
// for every torch version: each checks its tensors in the caller's thread,
// starts railyard's non-blocking collective or message there (so the ranks
// start a group's operations in the order the program calls them), and
// returns a Work the group's CompletionThread completes. The adapters
// (process_group.h) hand torch's calls here.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "railyard/comm/communicator.h"
#include "railyard/torch/completion_thread.h"
#include "railyard/torch/pending_operation.h"
#include "railyard/torch/progress_census.h"
#include "railyard/torch/staging.h"
#include "railyard/torch/tensor_types.h"

namespace railyard::pytorch {

class Group {
 public:
  // `timeout`: the group's, for every operation whose options set none;
  // `store`: the group's, for the census a failure takes.
  Group(comm::Communicator communicator, std::chrono::milliseconds timeout,
        c10::intrusive_ptr<c10d::Store> store);

  [[nodiscard]] int rank() const noexcept { return communicator_.rank(); }
  [[nodiscard]] int size() const noexcept { return communicator_.size(); }
  [[nodiscard]] const comm::Communicator& communicator() const noexcept { return communicator_; }

  using WorkPtr = c10::intrusive_ptr<c10d::Work>;

  // Reductions (group_reductions.cc).
  WorkPtr allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& options);
  WorkPtr allreduce_coalesced(std::vector<at::Tensor>& tensors,
                              const c10d::AllreduceCoalescedOptions& options);
  WorkPtr reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& options);
  WorkPtr reduce_scatter(std::vector<at::Tensor>& outputs,
                         std::vector<std::vector<at::Tensor>>& inputs,
                         const c10d::ReduceScatterOptions& options);
  WorkPtr reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                              const c10d::ReduceScatterOptions& options);

  // Copies among ranks (group_copies.cc).
  WorkPtr broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& options);
  WorkPtr allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                    const c10d::AllgatherOptions& options);
  WorkPtr allgather_base(at::Tensor& output, at::Tensor& input,
                         const c10d::AllgatherOptions& options);
  WorkPtr gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                 const c10d::GatherOptions& options);
  WorkPtr scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                  const c10d::ScatterOptions& options);

  // Exchanges (group_exchanges.cc).
  WorkPtr alltoall_base(at::Tensor& output, at::Tensor& input,
                        std::vector<std::int64_t>& output_splits,
                        std::vector<std::int64_t>& input_splits,
                        const c10d::AllToAllOptions& options);
  WorkPtr alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                   const c10d::AllToAllOptions& options);
  WorkPtr barrier(const c10d::BarrierOptions& options);

  // Point to point (group_messages.cc). Tags 0 and up; torch's default is 0.
  WorkPtr send(std::vector<at::Tensor>& tensors, int destination, int tag);
  WorkPtr recv(std::vector<at::Tensor>& tensors, int source, int tag);
  WorkPtr recv_any_source(std::vector<at::Tensor>& tensors, int tag);

 private:
  // What an operation's start returns.
  struct Started {
    std::vector<comm::Request> requests;
    std::function<void()> finish;
    std::vector<at::Tensor> keep_alive;
    // A receive: the bytes the message must hold.
    std::optional<std::size_t> expected_bytes;
  };

  // Starts an operation (`start` runs here, its errors thrown to the
  // caller) and hands it to the completion thread. `outputs` are the
  // Work's result.
  WorkPtr submit(c10d::OpType type, std::string what, std::vector<at::Tensor> outputs,
                 std::chrono::milliseconds timeout, const std::function<Started()>& start,
                 bool reports_source = false);
  WorkPtr receive(std::vector<at::Tensor>& tensors, int source, int tag, c10d::OpType type);
  // reduce_scatter's start, from `send` (every rank's blocks back to back)
  // into `output`, for both of its forms.
  Started start_reduce_scatter(const at::Tensor& send, at::Tensor output,
                               collectives::DataType type, const Reduction& reduction);
  [[nodiscard]] std::chrono::milliseconds timeout_of(std::chrono::milliseconds given) const;
  // Throws c10::Error naming `what` for a root outside the group.
  void check_root(std::int64_t root, const char* what) const;

  comm::Communicator communicator_;
  std::chrono::milliseconds timeout_;
  StagingPool staging_;
  ProgressCensus census_;
  // Last: it stops (failing what is left) before the communicator goes.
  CompletionThread completion_;
};

}  // namespace railyard::pytorch
