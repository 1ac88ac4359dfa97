// The point-to-point messages of the railyard process group: send, recv
// from one rank or from any.
#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <utility>

#include "railyard/comm/request.h"
#include "railyard/torch/group.h"
#include "railyard/torch/staging.h"
#include "railyard/torch/tensor_types.h"

namespace railyard::pytorch {
namespace {

void check_tag(int tag, const char* what) {
  TORCH_CHECK(tag >= 0 && tag <= comm::Communicator::kMaxTag, "railyard ", what, ": tag ", tag,
              " is negative; tags are 0 to ", comm::Communicator::kMaxTag);
}

std::size_t bytes_of(const at::Tensor& tensor) {
  return static_cast<std::size_t>(tensor.numel()) * tensor.element_size();
}

}  // namespace

Group::WorkPtr Group::send(std::vector<at::Tensor>& tensors, int destination, int tag) {
  constexpr const char* kWhat = "send";
  check_count(tensors, 1, kWhat, "the tensor list");
  check_tag(tag, kWhat);
  TORCH_CHECK(destination >= 0 && destination < size(), "railyard ", kWhat, ": rank ", destination,
              " is not a rank of this group of ", size());
  at::Tensor tensor = tensors.front();
  check_tensor(tensor, kWhat);
  return submit(
      c10d::OpType::SEND,
      fmt::format("{} of {} to rank {} (tag {})", kWhat, describe(tensor), destination, tag),
      tensors, timeout_of(c10d::kUnsetTimeout), [&] {
        at::Tensor buffer = staging_.contiguous(tensor);
        Started started;
        started.requests.push_back(
            communicator_.isend(buffer.data_ptr(), bytes_of(buffer), destination, tag));
        started.keep_alive = {buffer};
        return started;
      });
}

Group::WorkPtr Group::recv(std::vector<at::Tensor>& tensors, int source, int tag) {
  constexpr const char* kWhat = "recv";
  TORCH_CHECK(source >= 0 && source < size(), "railyard ", kWhat, ": rank ", source,
              " is not a rank of this group of ", size());
  return receive(tensors, source, tag, c10d::OpType::RECV);
}

Group::WorkPtr Group::recv_any_source(std::vector<at::Tensor>& tensors, int tag) {
  return receive(tensors, comm::kAnySource, tag, c10d::OpType::RECVANYSOURCE);
}

Group::WorkPtr Group::receive(std::vector<at::Tensor>& tensors, int source, int tag,
                              c10d::OpType type) {
  constexpr const char* kWhat = "recv";
  check_count(tensors, 1, kWhat, "the tensor list");
  check_tag(tag, kWhat);
  at::Tensor tensor = tensors.front();
  check_tensor(tensor, kWhat);
  const std::string from =
      source == comm::kAnySource ? std::string("any rank") : fmt::format("rank {}", source);
  return submit(
      type, fmt::format("{} of {} from {} (tag {})", kWhat, describe(tensor), from, tag), tensors,
      timeout_of(c10d::kUnsetTimeout),
      [&] {
        at::Tensor buffer = staging_.contiguous(tensor);
        Started started;
        started.requests.push_back(
            communicator_.irecv(buffer.data_ptr(), bytes_of(buffer), source, tag));
        started.finish = [buffer, tensor]() mutable { write_back(buffer, tensor); };
        started.keep_alive = {buffer};
        started.expected_bytes = bytes_of(buffer);
        return started;
      },
      true);
}

}  // namespace railyard::pytorch
