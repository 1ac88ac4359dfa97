// The reductions of the railyard process group: all_reduce (and its
// coalesced form), reduce, reduce_scatter (lists and flat tensors).
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "railyard/comm/collectives.h"
#include "railyard/torch/group.h"
#include "railyard/torch/staging.h"
#include "railyard/torch/tensor_types.h"

namespace railyard::pytorch {
namespace {

// AVG: the sum over the group's `size` ranks, divided (integers truncated,
// as C's division).
void divide_if_average(const Reduction& reduction, at::Tensor& buffer, int size) {
  if (!reduction.average) {
    return;
  }
  if (at::isFloatingType(buffer.scalar_type())) {
    buffer.div_(size);
  } else {
    buffer.div_(size, "trunc");
  }
}

// What a reduction's Work does once its requests end: AVG's division, then
// the result into the caller's tensor when it was staged.
std::function<void()> finish_reduction(at::Tensor buffer, at::Tensor tensor,
                                       const Reduction& reduction, int size) {
  return [buffer = std::move(buffer), tensor = std::move(tensor), reduction, size]() mutable {
    divide_if_average(reduction, buffer, size);
    write_back(buffer, tensor);
  };
}

}  // namespace

Group::WorkPtr Group::allreduce(std::vector<at::Tensor>& tensors,
                                const c10d::AllreduceOptions& options) {
  constexpr const char* kWhat = "all_reduce";
  check_count(tensors, 1, kWhat, "the tensor list");
  at::Tensor tensor = tensors.front();
  const auto type = data_type_of(tensor, kWhat);
  const Reduction reduction = reduction_for(options.reduceOp, tensor.scalar_type(), kWhat);
  return submit(c10d::OpType::ALLREDUCE, fmt::format("{} of {}", kWhat, describe(tensor)), tensors,
                timeout_of(options.timeout), [&] {
                  at::Tensor buffer = staging_.contiguous(tensor);
                  Started started;
                  // In place as send == recv: collectives::kInPlace is an address in
                  // librailyard this module, its symbols hidden, does not share.
                  started.requests.push_back(
                      comm::iallreduce(communicator_, buffer.data_ptr(), buffer.data_ptr(),
                                       element_count(buffer), type, reduction.op));
                  started.finish = finish_reduction(buffer, tensor, reduction, size());
                  started.keep_alive = {buffer};
                  return started;
                });
}

Group::WorkPtr Group::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                          const c10d::AllreduceCoalescedOptions& options) {
  constexpr const char* kWhat = "all_reduce_coalesced";
  TORCH_CHECK(!tensors.empty(), "railyard ", kWhat, ": no tensors given");
  // One all_reduce per element type, of that type's tensors back to back.
  std::vector<std::vector<at::Tensor>> by_type;
  std::vector<Reduction> reductions;  // one per element type
  for (const at::Tensor& tensor : tensors) {
    check_tensor(tensor, kWhat);
    auto same = std::find_if(by_type.begin(), by_type.end(), [&](const auto& list) {
      return list.front().scalar_type() == tensor.scalar_type();
    });
    if (same == by_type.end()) {
      by_type.push_back({tensor});
      reductions.push_back(reduction_for(options.reduceOp, tensor.scalar_type(), kWhat));
    } else {
      same->push_back(tensor);
    }
  }
  return submit(
      c10d::OpType::ALLREDUCE_COALESCED,
      fmt::format("{} of {} tensors ({} first)", kWhat, tensors.size(), describe(tensors.front())),
      tensors, timeout_of(options.timeout), [&] {
        Started started;
        std::vector<at::Tensor> flats;
        for (std::size_t i = 0; i < by_type.size(); ++i) {
          at::Tensor flat = staging_.flatten(by_type[i]);
          started.requests.push_back(comm::iallreduce(communicator_, flat.data_ptr(),
                                                      flat.data_ptr(), element_count(flat),
                                                      data_type_of(flat, kWhat), reductions[i].op));
          flats.push_back(flat);
        }
        started.finish = [flats, by_type, reductions, size = size()]() mutable {
          for (std::size_t i = 0; i < flats.size(); ++i) {
            divide_if_average(reductions[i], flats[i], size);
            unflatten(flats[i], by_type[i]);
          }
        };
        started.keep_alive = flats;
        return started;
      });
}

Group::WorkPtr Group::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& options) {
  constexpr const char* kWhat = "reduce";
  check_count(tensors, 1, kWhat, "the tensor list");
  check_root(options.rootRank, kWhat);
  at::Tensor tensor = tensors.front();
  const auto type = data_type_of(tensor, kWhat);
  const Reduction reduction = reduction_for(options.reduceOp, tensor.scalar_type(), kWhat);
  const int root = static_cast<int>(options.rootRank);
  return submit(c10d::OpType::REDUCE,
                fmt::format("{} of {} to rank {}", kWhat, describe(tensor), root), tensors,
                timeout_of(options.timeout), [&] {
                  at::Tensor buffer = staging_.contiguous(tensor);
                  const bool at_root = rank() == root;
                  Started started;
                  started.requests.push_back(comm::ireduce(
                      communicator_, buffer.data_ptr(), at_root ? buffer.data_ptr() : nullptr,
                      element_count(buffer), type, reduction.op, root));
                  if (at_root) {
                    started.finish = finish_reduction(buffer, tensor, reduction, size());
                  }
                  started.keep_alive = {buffer};
                  return started;
                });
}

Group::WorkPtr Group::reduce_scatter(std::vector<at::Tensor>& outputs,
                                     std::vector<std::vector<at::Tensor>>& inputs,
                                     const c10d::ReduceScatterOptions& options) {
  constexpr const char* kWhat = "reduce_scatter";
  check_count(outputs, 1, kWhat, "the output list");
  TORCH_CHECK(inputs.size() == 1, "railyard ", kWhat, ": the input list holds ", inputs.size(),
              " lists, expected 1");
  check_count(inputs.front(), static_cast<std::size_t>(size()), kWhat, "the input list");
  at::Tensor output = outputs.front();
  std::vector<at::Tensor> parts = inputs.front();
  parts.push_back(output);
  const auto type = check_same_kind(parts, kWhat);
  parts.pop_back();
  const Reduction reduction = reduction_for(options.reduceOp, output.scalar_type(), kWhat);
  return submit(c10d::OpType::REDUCE_SCATTER,
                fmt::format("{} of {} tensors of {}", kWhat, size(), describe(output)), outputs,
                timeout_of(options.timeout), [&] {
                  return start_reduce_scatter(staging_.flatten(parts), output, type, reduction);
                });
}

Group::WorkPtr Group::reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                          const c10d::ReduceScatterOptions& options) {
  constexpr const char* kWhat = "reduce_scatter_tensor";
  const auto type = data_type_of(output, kWhat);
  check_tensor(input, kWhat);
  TORCH_CHECK(
      input.scalar_type() == output.scalar_type() && input.numel() == output.numel() * size(),
      "railyard ", kWhat, ": the input is ", describe(input), " and the output ", describe(output),
      "; the input must hold the group's size (", size(),
      ") times the output's elements, of the same type");
  const Reduction reduction = reduction_for(options.reduceOp, output.scalar_type(), kWhat);
  return submit(c10d::OpType::_REDUCE_SCATTER_BASE,
                fmt::format("{} of {} into {}", kWhat, describe(input), describe(output)), {output},
                timeout_of(options.timeout), [&] {
                  return start_reduce_scatter(staging_.contiguous(input), output, type, reduction);
                });
}

Group::Started Group::start_reduce_scatter(const at::Tensor& send, at::Tensor output,
                                           collectives::DataType type, const Reduction& reduction) {
  at::Tensor receive = staging_.contiguous(output);
  Started started;
  started.requests.push_back(comm::ireduce_scatter(communicator_, send.data_ptr(),
                                                   receive.data_ptr(), element_count(receive), type,
                                                   reduction.op));
  started.finish = finish_reduction(receive, std::move(output), reduction, size());
  started.keep_alive = {send, receive};
  return started;
}

}  // namespace railyard::pytorch
