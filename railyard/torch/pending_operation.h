// An operation of the railyard process group once started: the railyard
// requests carrying it, what finishes it when they are done, and the Work
// torch holds.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "railyard/comm/request.h"
#include "railyard/torch/work.h"

namespace railyard::pytorch {

struct PendingOperation {
  // "all_reduce of float32 [1024] on cpu", for errors.
  std::string what;
  // Tensors the requests read or write that the Work does not hold (staged
  // copies): alive until the requests end, even after a timeout (declared
  // before the requests, so that they go after them).
  std::vector<at::Tensor> keep_alive;
  // Runs once every request finished: copies staged results into the
  // caller's tensors, divides an average. May throw: the Work fails.
  std::function<void()> finish;
  c10::intrusive_ptr<Work> work;
  // The Work fails with a TimeoutError naming whom the requests wait for
  // when they are not done by then.
  std::chrono::steady_clock::time_point deadline;
  std::chrono::milliseconds timeout{0};
  // A receive: the Work reports its sender (from any rank), and the
  // message must fill the tensor, these many bytes.
  bool reports_source = false;
  // A collective: its index in the group's order (ProgressCensus), whose
  // census a timeout adds to its message. Unset for a send or receive.
  std::optional<std::uint64_t> collective_index;
  std::optional<std::size_t> expected_bytes;
  std::vector<comm::Request> requests;
};

}  // namespace railyard::pytorch
