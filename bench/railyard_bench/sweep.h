// The measurement of railyard-bench: for each size, optionally a checked
// call, then warm-up calls and timed calls back to back, out of place and
// in place, as nccl-tests measures. The time is each rank's mean per call,
// averaged over the ranks (nccl-tests' default); the slowest rank's mean is
// kept beside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bench_comm.h"
#include "data_check.h"

namespace railyard::bench {

struct SweepOptions {
  Operation operation = Operation::kAllreduce;
  collectives::DataType type = collectives::DataType::kFloat32;
  collectives::ReduceOp op = collectives::ReduceOp::kSum;
  int root = 0;
  int iterations = 20;
  int warmup = 5;
  bool check = true;
};

struct Measurement {
  double time_us = 0;                  // each rank's mean per call, averaged over the ranks
  double algbw_gbps = 0;               // bytes / time, in 10^9 bytes per second
  double busbw_gbps = 0;               // algbw * bus_factor
  std::optional<std::uint64_t> wrong;  // every rank's wrong elements; nullopt: not checked
  double max_time_us = 0;              // the slowest rank's mean per call
};

struct Row {
  std::size_t bytes = 0;     // elements * element size
  std::size_t elements = 0;  // as elements_for counts them
  Measurement out_of_place;
  std::optional<Measurement> in_place;  // nullopt: the operation has none
};

// The sizes from `min` to `max`: multiplied by `factor`, or, when `step`
// is not 0, increased by `step`.
[[nodiscard]] std::vector<std::size_t> sweep_sizes(std::size_t min, std::size_t max,
                                                   std::size_t factor, std::size_t step);

class Sweep {
 public:
  // Buffers for sizes up to `max_bytes` are allocated here, once.
  Sweep(BenchComm& comm, const SweepOptions& options, std::size_t max_bytes);

  // Collective: every rank measures the same sizes in the same order.
  [[nodiscard]] Row measure(std::size_t bytes);

 private:
  Measurement measure_placement(std::size_t elements, bool in_place);
  // Puts this rank's input where the call reads it.
  void prepare(std::size_t elements, bool in_place);
  [[nodiscard]] Call call(std::size_t elements, bool in_place);

  BenchComm& comm_;
  SweepOptions options_;
  CheckShape shape_;
  std::size_t element_;
  std::vector<std::byte> send_;
  std::vector<std::byte> recv_;
};

}  // namespace railyard::bench
