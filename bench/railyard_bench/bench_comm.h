// What railyard-bench measures through: a job's ranks and one blocking
// collective call. railyard's Communicator is one implementation; MPI's is
// the other, so the same measurement and check code runs both sides of a
// comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "operation.h"
#include "railyard/collectives/datatype.h"

namespace railyard::bench {

// One call, as the library takes it. `count` is call_count()'s.
struct Call {
  Operation operation;
  const void* send;  // not read when in place
  void* recv;
  std::size_t count;
  collectives::DataType type;
  collectives::ReduceOp op;
  int root;
  bool in_place;
};

// What crossed one of a rank's rails: payload that left this rank, and
// payload that arrived (a rendezvous read counts once on each side: sent
// where its data left, received where it arrived).
struct RailBytes {
  std::string rail;
  std::uint64_t sent;
  std::uint64_t received;
};

class BenchComm {
 public:
  BenchComm() = default;
  virtual ~BenchComm() = default;
  BenchComm(const BenchComm&) = delete;
  BenchComm& operator=(const BenchComm&) = delete;
  BenchComm(BenchComm&&) = delete;
  BenchComm& operator=(BenchComm&&) = delete;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // This rank among the ranks of its host (0 on one rank of each host).
  [[nodiscard]] virtual int local_rank() const = 0;
  // The library and transport measured, for the header ("railyard", "Open
  // MPI 4.1.4").
  [[nodiscard]] virtual std::string library() const = 0;
  // This rank's path to the others: its rails, or the MPI transport.
  [[nodiscard]] virtual std::string paths() const = 0;
  // What this rank has moved over each rail so far (empty when the library
  // does not say).
  [[nodiscard]] virtual std::vector<RailBytes> rail_bytes() const = 0;

  // One blocking collective; throws the library's error.
  virtual void run(const Call& call) = 0;
  virtual void barrier() = 0;
  // Every rank's `bytes` at `mine`, in rank order, into `all`.
  virtual void allgather(const void* mine, void* all, std::size_t bytes) = 0;
  [[nodiscard]] virtual double sum(double value) = 0;
  [[nodiscard]] virtual double max(double value) = 0;
  [[nodiscard]] virtual std::uint64_t sum(std::uint64_t value) = 0;
};

// Every rank's `line` (of any length) on rank 0, in rank order; empty on
// the others. Collective.
[[nodiscard]] std::vector<std::string> gather_lines(BenchComm& comm, const std::string& line);

}  // namespace railyard::bench
