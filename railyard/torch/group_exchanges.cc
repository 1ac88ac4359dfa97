// The exchanges of the railyard process group: all_to_all (flat tensors
// with equal or uneven splits, and lists) and the barrier.
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <memory>
#include <numeric>
#include <utility>

#include "railyard/comm/collectives.h"
#include "railyard/torch/group.h"
#include "railyard/torch/staging.h"
#include "railyard/torch/tensor_types.h"

namespace railyard::pytorch {
namespace {

// Elements per rank and where each rank's block starts, for the v-form;
// they must outlive the collective.
struct Blocks {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;

  void add(std::size_t count) {
    displs.push_back(counts.empty() ? 0 : displs.back() + counts.back());
    counts.push_back(count);
  }
};

// The blocks of `tensor` cut along its first dimension by `splits` (rows
// per rank; none: equal parts).
Blocks blocks_of(const at::Tensor& tensor, const std::vector<std::int64_t>& splits, int ranks,
                 const char* what, const char* which) {
  const std::int64_t rows = tensor.dim() == 0 ? 1 : tensor.size(0);
  const std::int64_t row = rows == 0 ? 0 : tensor.numel() / rows;
  Blocks blocks;
  if (splits.empty()) {
    TORCH_CHECK(rows % ranks == 0, "railyard ", what, ": the ", which, " is ", describe(tensor),
                "; without split sizes its first dimension must divide by the group's size (",
                ranks, ")");
    for (int r = 0; r < ranks; ++r) {
      blocks.add(static_cast<std::size_t>(rows / ranks * row));
    }
    return blocks;
  }
  TORCH_CHECK(splits.size() == static_cast<std::size_t>(ranks), "railyard ", what, ": ",
              splits.size(), " ", which, " split sizes for a group of ", ranks);
  TORCH_CHECK(std::accumulate(splits.begin(), splits.end(), std::int64_t{0}) == rows &&
                  std::ranges::all_of(splits, [](std::int64_t s) { return s >= 0; }),
              "railyard ", what, ": the ", which, " split sizes ", c10::IntArrayRef(splits),
              " do not cut the ", which, "'s ", rows, " rows");
  for (const std::int64_t split : splits) {
    blocks.add(static_cast<std::size_t>(split * row));
  }
  return blocks;
}

}  // namespace

Group::WorkPtr Group::alltoall_base(at::Tensor& output, at::Tensor& input,
                                    std::vector<std::int64_t>& output_splits,
                                    std::vector<std::int64_t>& input_splits,
                                    const c10d::AllToAllOptions& options) {
  constexpr const char* kWhat = "all_to_all_single";
  const auto type = data_type_of(input, kWhat);
  check_tensor(output, kWhat);
  TORCH_CHECK(input.scalar_type() == output.scalar_type(), "railyard ", kWhat, ": the input is ",
              describe(input), " and the output ", describe(output),
              "; they must have the same type");
  auto sent = std::make_shared<Blocks>(blocks_of(input, input_splits, size(), kWhat, "input"));
  auto received =
      std::make_shared<Blocks>(blocks_of(output, output_splits, size(), kWhat, "output"));
  return submit(c10d::OpType::ALLTOALL_BASE,
                fmt::format("{} of {} into {}", kWhat, describe(input), describe(output)), {output},
                timeout_of(options.timeout), [&] {
                  at::Tensor send = staging_.contiguous(input);
                  at::Tensor receive = staging_.contiguous(output);
                  Started started;
                  started.requests.push_back(comm::ialltoallv(
                      communicator_, send.data_ptr(), sent->counts, sent->displs,
                      receive.data_ptr(), received->counts, received->displs, type));
                  started.finish = [receive, output, sent, received]() mutable {
                    write_back(receive, output);
                  };
                  started.keep_alive = {send, receive};
                  return started;
                });
}

Group::WorkPtr Group::alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                               const c10d::AllToAllOptions& options) {
  constexpr const char* kWhat = "all_to_all";
  const auto ranks = static_cast<std::size_t>(size());
  check_count(outputs, ranks, kWhat, "the output list");
  check_count(inputs, ranks, kWhat, "the input list");
  const auto type = data_type_of(inputs.front(), kWhat);
  auto sent = std::make_shared<Blocks>();
  auto received = std::make_shared<Blocks>();
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const at::Tensor* tensor : {&inputs[r], &outputs[r]}) {
      check_tensor(*tensor, kWhat);
      TORCH_CHECK(tensor->scalar_type() == inputs.front().scalar_type(), "railyard ", kWhat, ": ",
                  describe(*tensor), " beside ", describe(inputs.front()),
                  "; every tensor must have the same type");
    }
    sent->add(static_cast<std::size_t>(inputs[r].numel()));
    received->add(static_cast<std::size_t>(outputs[r].numel()));
  }
  return submit(c10d::OpType::ALLTOALL,
                fmt::format("{} of {} tensors ({} first)", kWhat, ranks, describe(inputs.front())),
                outputs, timeout_of(options.timeout), [&] {
                  at::Tensor send = staging_.flatten(inputs);
                  at::Tensor receive = staging_.flat_like(outputs);
                  Started started;
                  started.requests.push_back(comm::ialltoallv(
                      communicator_, send.data_ptr(), sent->counts, sent->displs,
                      receive.data_ptr(), received->counts, received->displs, type));
                  started.finish = [receive, parts = outputs, sent, received]() mutable {
                    unflatten(receive, parts);
                  };
                  started.keep_alive = {send, receive};
                  return started;
                });
}

Group::WorkPtr Group::barrier(const c10d::BarrierOptions& options) {
  return submit(c10d::OpType::BARRIER, "barrier", {}, timeout_of(options.timeout), [&] {
    Started started;
    started.requests.push_back(comm::ibarrier(communicator_));
    return started;
  });
}

}  // namespace railyard::pytorch
