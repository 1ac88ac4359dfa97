// The copies among the ranks of the railyard process group: broadcast,
// all_gather (lists and flat tensors), gather, scatter.
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <utility>

#include "railyard/comm/collectives.h"
#include "railyard/torch/group.h"
#include "railyard/torch/staging.h"
#include "railyard/torch/tensor_types.h"

namespace railyard::pytorch {
namespace {

// The one list of a list of lists (torch passes one per device).
std::vector<at::Tensor>& only_list(std::vector<std::vector<at::Tensor>>& lists, const char* what,
                                   const char* which) {
  TORCH_CHECK(lists.size() == 1, "railyard ", what, ": the ", which, " list holds ", lists.size(),
              " lists, expected 1");
  return lists.front();
}

}  // namespace

Group::WorkPtr Group::broadcast(std::vector<at::Tensor>& tensors,
                                const c10d::BroadcastOptions& options) {
  constexpr const char* kWhat = "broadcast";
  check_count(tensors, 1, kWhat, "the tensor list");
  check_root(options.rootRank, kWhat);
  TORCH_CHECK(options.rootTensor == 0, "railyard ", kWhat, ": root tensor ", options.rootTensor,
              " of a list of one");
  at::Tensor tensor = tensors.front();
  const auto type = data_type_of(tensor, kWhat);
  const int root = static_cast<int>(options.rootRank);
  return submit(c10d::OpType::BROADCAST,
                fmt::format("{} of {} from rank {}", kWhat, describe(tensor), root), tensors,
                timeout_of(options.timeout), [&] {
                  at::Tensor buffer = staging_.contiguous(tensor);
                  Started started;
                  started.requests.push_back(comm::ibcast(communicator_, buffer.data_ptr(),
                                                          element_count(buffer), type, root));
                  started.finish = [buffer, tensor]() mutable { write_back(buffer, tensor); };
                  started.keep_alive = {buffer};
                  return started;
                });
}

Group::WorkPtr Group::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                std::vector<at::Tensor>& inputs,
                                const c10d::AllgatherOptions& options) {
  constexpr const char* kWhat = "all_gather";
  check_count(inputs, 1, kWhat, "the input list");
  std::vector<at::Tensor>& parts = only_list(outputs, kWhat, "output");
  check_count(parts, static_cast<std::size_t>(size()), kWhat, "the output list");
  at::Tensor input = inputs.front();
  std::vector<at::Tensor> all = parts;
  all.push_back(input);
  const auto type = check_same_kind(all, kWhat);
  return submit(
      c10d::OpType::ALLGATHER, fmt::format("{} of {}", kWhat, describe(input)), parts,
      timeout_of(options.timeout), [&] {
        at::Tensor send = staging_.contiguous(input);
        at::Tensor receive = staging_.flat_like(parts);
        Started started;
        started.requests.push_back(comm::iallgather(communicator_, send.data_ptr(),
                                                    receive.data_ptr(), element_count(send), type));
        started.finish = [receive, parts]() mutable { unflatten(receive, parts); };
        started.keep_alive = {send, receive};
        return started;
      });
}

Group::WorkPtr Group::allgather_base(at::Tensor& output, at::Tensor& input,
                                     const c10d::AllgatherOptions& options) {
  constexpr const char* kWhat = "all_gather_into_tensor";
  const auto type = data_type_of(input, kWhat);
  check_tensor(output, kWhat);
  TORCH_CHECK(
      input.scalar_type() == output.scalar_type() && output.numel() == input.numel() * size(),
      "railyard ", kWhat, ": the input is ", describe(input), " and the output ", describe(output),
      "; the output must hold the group's size (", size(),
      ") times the input's elements, of the same type");
  return submit(
      c10d::OpType::_ALLGATHER_BASE,
      fmt::format("{} of {} into {}", kWhat, describe(input), describe(output)), {output},
      timeout_of(options.timeout), [&] {
        at::Tensor send = staging_.contiguous(input);
        at::Tensor receive = staging_.contiguous(output);
        Started started;
        started.requests.push_back(comm::iallgather(communicator_, send.data_ptr(),
                                                    receive.data_ptr(), element_count(send), type));
        started.finish = [receive, output]() mutable { write_back(receive, output); };
        started.keep_alive = {send, receive};
        return started;
      });
}

Group::WorkPtr Group::gather(std::vector<std::vector<at::Tensor>>& outputs,
                             std::vector<at::Tensor>& inputs, const c10d::GatherOptions& options) {
  constexpr const char* kWhat = "gather";
  check_count(inputs, 1, kWhat, "the input list");
  check_root(options.rootRank, kWhat);
  const int root = static_cast<int>(options.rootRank);
  at::Tensor input = inputs.front();
  std::vector<at::Tensor> parts;
  if (rank() == root) {
    parts = only_list(outputs, kWhat, "output");
    check_count(parts, static_cast<std::size_t>(size()), kWhat, "the root's output list");
    std::vector<at::Tensor> all = parts;
    all.push_back(input);
    check_same_kind(all, kWhat);
  } else {
    TORCH_CHECK(outputs.empty() || (outputs.size() == 1 && outputs.front().empty()), "railyard ",
                kWhat, ": rank ", rank(), " is not the root (", root,
                ") and must pass no output tensors");
  }
  const auto type = data_type_of(input, kWhat);
  return submit(
      c10d::OpType::GATHER, fmt::format("{} of {} to rank {}", kWhat, describe(input), root), parts,
      timeout_of(options.timeout), [&] {
        at::Tensor send = staging_.contiguous(input);
        at::Tensor receive = parts.empty() ? at::Tensor() : staging_.flat_like(parts);
        Started started;
        started.requests.push_back(comm::igather(communicator_, send.data_ptr(),
                                                 receive.defined() ? receive.data_ptr() : nullptr,
                                                 element_count(send), type, root));
        if (receive.defined()) {
          started.finish = [receive, parts]() mutable { unflatten(receive, parts); };
          started.keep_alive = {send, receive};
        } else {
          started.keep_alive = {send};
        }
        return started;
      });
}

Group::WorkPtr Group::scatter(std::vector<at::Tensor>& outputs,
                              std::vector<std::vector<at::Tensor>>& inputs,
                              const c10d::ScatterOptions& options) {
  constexpr const char* kWhat = "scatter";
  check_count(outputs, 1, kWhat, "the output list");
  check_root(options.rootRank, kWhat);
  const int root = static_cast<int>(options.rootRank);
  at::Tensor output = outputs.front();
  std::vector<at::Tensor> parts;
  if (rank() == root) {
    parts = only_list(inputs, kWhat, "input");
    check_count(parts, static_cast<std::size_t>(size()), kWhat, "the root's input list");
    std::vector<at::Tensor> all = parts;
    all.push_back(output);
    check_same_kind(all, kWhat);
  } else {
    TORCH_CHECK(inputs.empty() || (inputs.size() == 1 && inputs.front().empty()), "railyard ",
                kWhat, ": rank ", rank(), " is not the root (", root,
                ") and must pass no input tensors");
  }
  const auto type = data_type_of(output, kWhat);
  return submit(c10d::OpType::SCATTER,
                fmt::format("{} of {} from rank {}", kWhat, describe(output), root), outputs,
                timeout_of(options.timeout), [&] {
                  at::Tensor send = parts.empty() ? at::Tensor() : staging_.flatten(parts);
                  at::Tensor receive = staging_.contiguous(output);
                  Started started;
                  started.requests.push_back(
                      comm::iscatter(communicator_, send.defined() ? send.data_ptr() : nullptr,
                                     receive.data_ptr(), element_count(receive), type, root));
                  started.finish = [receive, output]() mutable { write_back(receive, output); };
                  started.keep_alive = {receive};
                  if (send.defined()) {
                    started.keep_alive.push_back(send);
                  }
                  return started;
                });
}

}  // namespace railyard::pytorch
