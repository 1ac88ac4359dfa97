#include "railyard_bench_comm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <utility>

namespace railyard::bench {

RailyardBenchComm::RailyardBenchComm(comm::Communicator communicator, std::string algorithm)
    : comm_(std::move(communicator)), options_{.algorithm = std::move(algorithm)} {}

std::string RailyardBenchComm::library() const { return "railyard"; }

std::string RailyardBenchComm::paths() const {
  std::vector<std::string> rails;
  for (const auto& rail : comm_.counters().rails) {
    rails.push_back(rail.host_only ? fmt::format("{} (same host)", rail.name) : rail.name);
  }
  return fmt::format("rails {}", fmt::join(rails, ", "));
}

std::vector<RailBytes> RailyardBenchComm::rail_bytes() const {
  std::vector<RailBytes> out;
  for (const auto& rail : comm_.counters().rails) {
    out.push_back({rail.name, rail.bytes_sent, rail.bytes_received});
  }
  return out;
}

void RailyardBenchComm::run(const Call& call) {
  const void* send = call.in_place ? comm::kInPlace : call.send;
  switch (call.operation) {
    case Operation::kAllreduce:
      return comm::allreduce(comm_, send, call.recv, call.count, call.type, call.op, options_);
    case Operation::kBcast:
      return comm::bcast(comm_, call.recv, call.count, call.type, call.root, options_);
    case Operation::kReduce:
      // Only the root has a receive buffer to be in place in.
      return comm::reduce(comm_, call.in_place && comm_.rank() != call.root ? call.send : send,
                          call.recv, call.count, call.type, call.op, call.root, options_);
    case Operation::kAllgather:
      return comm::allgather(comm_, send, call.recv, call.count, call.type, options_);
    case Operation::kReduceScatter:
      return comm::reduce_scatter(comm_, send, call.recv, call.count, call.type, call.op, options_);
    case Operation::kAlltoall:
      return comm::alltoall(comm_, send, call.recv, call.count, call.type, options_);
    case Operation::kBarrier:
      return comm::barrier(comm_, options_);
    case Operation::kSendrecv: {
      const std::size_t bytes = call.count * collectives::size_of(call.type);
      const int next = (comm_.rank() + 1) % comm_.size();
      const int previous = (comm_.rank() + comm_.size() - 1) % comm_.size();
      // Receive first, so that one rank sending to itself works too.
      std::array<comm::Request, 2> pair{comm_.irecv(call.recv, bytes, previous, 0),
                                        comm_.isend(call.send, bytes, next, 0)};
      pair[0].wait();
      pair[1].wait();
      return;
    }
    case Operation::kGather:
      return comm::gather(comm_, call.send, call.recv, call.count, call.type, call.root, options_);
    case Operation::kScatter:
      return comm::scatter(comm_, call.send, call.recv, call.count, call.type, call.root, options_);
    case Operation::kAllgatherv:
      equal_blocks(call.count);
      return comm::allgatherv(comm_, send, call.count, call.recv, counts_, displs_, call.type,
                              options_);
    case Operation::kAlltoallv:
      equal_blocks(call.count);
      return comm::alltoallv(comm_, send, counts_, displs_, call.recv, counts_, displs_, call.type,
                             options_);
    case Operation::kReduceScatterv:
      equal_blocks(call.count);
      return comm::reduce_scatterv(comm_, send, call.recv, counts_, call.type, call.op, options_);
  }
}

void RailyardBenchComm::equal_blocks(std::size_t count) {
  const auto ranks = static_cast<std::size_t>(comm_.size());
  if (counts_.size() == ranks && (ranks == 0 || counts_[0] == count)) {
    return;
  }
  counts_.assign(ranks, count);
  displs_.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    displs_[r] = r * count;
  }
}

void RailyardBenchComm::barrier() { comm::barrier(comm_); }

void RailyardBenchComm::allgather(const void* mine, void* all, std::size_t bytes) {
  comm::allgather(comm_, mine, all, bytes, collectives::DataType::kUint8);
}

double RailyardBenchComm::sum(double value) {
  double total = 0;
  comm::allreduce(comm_, &value, &total, 1, collectives::DataType::kFloat64,
                  collectives::ReduceOp::kSum);
  return total;
}

double RailyardBenchComm::max(double value) {
  double largest = 0;
  comm::allreduce(comm_, &value, &largest, 1, collectives::DataType::kFloat64,
                  collectives::ReduceOp::kMax);
  return largest;
}

std::uint64_t RailyardBenchComm::sum(std::uint64_t value) {
  std::uint64_t total = 0;
  comm::allreduce(comm_, &value, &total, 1, collectives::DataType::kUint64,
                  collectives::ReduceOp::kSum);
  return total;
}

}  // namespace railyard::bench
