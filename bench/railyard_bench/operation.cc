#include "operation.h"

#include <array>

namespace railyard::bench {
namespace {

constexpr std::array<std::string_view, 13> kNames{
    "allreduce", "bcast",  "reduce",  "allgather",  "reduce_scatter", "alltoall",       "barrier",
    "sendrecv",  "gather", "scatter", "allgatherv", "alltoallv",      "reduce_scatterv"};

// Whether the vector is cut into one block per rank.
bool blocked(Operation operation) noexcept {
  switch (data_of(operation)) {
    case Operation::kAllgather:
    case Operation::kReduceScatter:
    case Operation::kAlltoall:
    case Operation::kGather:
    case Operation::kScatter:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view to_string(Operation operation) noexcept {
  return kNames[static_cast<std::size_t>(operation)];
}

std::optional<Operation> operation_named(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      return static_cast<Operation>(i);
    }
  }
  return std::nullopt;
}

std::string_view operation_names() noexcept {
  return "allreduce, bcast, reduce, allgather, reduce_scatter, alltoall, barrier, sendrecv, "
         "gather, scatter, allgatherv, alltoallv, reduce_scatterv";
}

Operation data_of(Operation operation) noexcept {
  switch (operation) {
    case Operation::kAllgatherv:
      return Operation::kAllgather;
    case Operation::kAlltoallv:
      return Operation::kAlltoall;
    case Operation::kReduceScatterv:
      return Operation::kReduceScatter;
    default:
      return operation;
  }
}

std::optional<collectives::Collective> collective_of(Operation operation) noexcept {
  switch (operation) {
    case Operation::kAllreduce:
      return collectives::Collective::kAllreduce;
    case Operation::kBcast:
      return collectives::Collective::kBcast;
    case Operation::kReduce:
      return collectives::Collective::kReduce;
    case Operation::kAllgather:
      return collectives::Collective::kAllgather;
    case Operation::kReduceScatter:
      return collectives::Collective::kReduceScatter;
    case Operation::kAlltoall:
      return collectives::Collective::kAlltoall;
    case Operation::kBarrier:
      return collectives::Collective::kBarrier;
    case Operation::kSendrecv:
      return std::nullopt;
    case Operation::kGather:
      return collectives::Collective::kGather;
    case Operation::kScatter:
      return collectives::Collective::kScatter;
    case Operation::kAllgatherv:
      return collectives::Collective::kAllgatherv;
    case Operation::kAlltoallv:
      return collectives::Collective::kAlltoallv;
    case Operation::kReduceScatterv:
      return collectives::Collective::kReduceScatterv;
  }
  return std::nullopt;
}

bool reduces(Operation operation) noexcept {
  const Operation data = data_of(operation);
  return data == Operation::kAllreduce || data == Operation::kReduce ||
         data == Operation::kReduceScatter;
}

bool rooted(Operation operation) noexcept {
  return operation == Operation::kBcast || operation == Operation::kReduce ||
         operation == Operation::kGather || operation == Operation::kScatter;
}

bool has_in_place(Operation operation) noexcept {
  return operation != Operation::kBcast && operation != Operation::kBarrier &&
         operation != Operation::kSendrecv && operation != Operation::kGather &&
         operation != Operation::kScatter;
}

std::size_t smallest_size(Operation operation, std::size_t element, int ranks) noexcept {
  return blocked(operation) ? element * static_cast<std::size_t>(ranks) : element;
}

std::size_t elements_for(Operation operation, std::size_t bytes, std::size_t element,
                         int ranks) noexcept {
  if (operation == Operation::kBarrier) {
    return 0;
  }
  const std::size_t elements = bytes / element;
  const auto parts = static_cast<std::size_t>(ranks);
  return blocked(operation) ? elements / parts * parts : elements;
}

std::size_t call_count(Operation operation, std::size_t elements, int ranks) noexcept {
  return blocked(operation) ? elements / static_cast<std::size_t>(ranks) : elements;
}

std::size_t send_elements(Operation operation, std::size_t elements, int ranks) noexcept {
  switch (data_of(operation)) {
    case Operation::kAllgather:
    case Operation::kGather:
      return elements / static_cast<std::size_t>(ranks);
    case Operation::kBcast:  // one buffer: the receive one
    case Operation::kBarrier:
      return 0;
    default:
      return elements;
  }
}

std::size_t recv_elements(Operation operation, std::size_t elements, int ranks) noexcept {
  switch (data_of(operation)) {
    case Operation::kReduceScatter:
    case Operation::kScatter:
      return elements / static_cast<std::size_t>(ranks);
    case Operation::kBarrier:
      return 0;
    default:
      return elements;
  }
}

double bus_factor(Operation operation, int ranks) noexcept {
  const double p = ranks;
  switch (data_of(operation)) {
    case Operation::kAllreduce:
      return 2.0 * (p - 1) / p;
    case Operation::kAllgather:
    case Operation::kReduceScatter:
    case Operation::kAlltoall:
    case Operation::kGather:
    case Operation::kScatter:
      return (p - 1) / p;
    default:
      return 1.0;
  }
}

}  // namespace railyard::bench
