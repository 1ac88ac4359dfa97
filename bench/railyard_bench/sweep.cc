#include "sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <new>
#include <stdexcept>

namespace railyard::bench {

std::vector<std::size_t> sweep_sizes(std::size_t min, std::size_t max, std::size_t factor,
                                     std::size_t step) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = min; size <= max;) {
    sizes.push_back(size);
    // The next size would pass `max` (checked before it is computed, so
    // that it cannot wrap around into a small one). A zero size is followed
    // by 1.
    if (step != 0 ? max - size < step : size > max / factor) {
      break;
    }
    size = step != 0 ? size + step : std::max<std::size_t>(size * factor, 1);
  }
  return sizes;
}

Sweep::Sweep(BenchComm& comm, const SweepOptions& options, std::size_t max_bytes)
    : comm_(comm),
      options_(options),
      shape_{options.operation, options.type, options.op, comm.size(), options.root},
      element_(collectives::size_of(options.type)) {
  const std::size_t elements = elements_for(options.operation, max_bytes, element_, comm.size());
  const std::size_t sends = send_elements(options.operation, elements, comm.size());
  const std::size_t recvs = recv_elements(options.operation, elements, comm.size());
  const std::size_t send_bytes = sends * element_;
  // In place, the receive buffer holds the input too.
  const std::size_t recv_bytes = std::max(sends, recvs) * element_;
  try {
    send_.resize(send_bytes);
    recv_.resize(recv_bytes);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format(
        "-e {}: this rank cannot allocate the buffers {} of that size needs ({} bytes to send and "
        "{} to receive, {} in all): the memory is not there; choose a smaller -e",
        max_bytes, to_string(options.operation), send_bytes, recv_bytes, send_bytes + recv_bytes));
  }
}

Call Sweep::call(std::size_t elements, bool in_place) {
  return Call{.operation = options_.operation,
              .send = send_.data(),
              .recv = recv_.data(),
              .count = call_count(options_.operation, elements, comm_.size()),
              .type = options_.type,
              .op = options_.op,
              .root = options_.root,
              .in_place = in_place};
}

void Sweep::prepare(std::size_t elements, bool in_place) {
  const int rank = comm_.rank();
  const std::size_t sends = send_elements(options_.operation, elements, comm_.size());
  poison(recv_.data(), recv_.size());
  switch (data_of(options_.operation)) {
    case Operation::kBcast:
      if (rank == options_.root) {
        fill_input(shape_, rank, recv_.data(), 0, elements);
      }
      return;
    case Operation::kAllgather:
      if (in_place) {
        // This rank's block, at its place among the others.
        fill_input(shape_, rank, recv_.data() + static_cast<std::size_t>(rank) * sends * element_,
                   0, sends);
        return;
      }
      break;
    case Operation::kReduce:
      if (in_place && rank == options_.root) {
        fill_input(shape_, rank, recv_.data(), 0, sends);
        return;
      }
      break;
    default:
      if (in_place) {
        fill_input(shape_, rank, recv_.data(), 0, sends);
        return;
      }
      break;
  }
  fill_input(shape_, rank, send_.data(), 0, sends);
}

Measurement Sweep::measure_placement(std::size_t elements, bool in_place) {
  Measurement result;
  const Call one = call(elements, in_place);
  prepare(elements, in_place);
  if (options_.check) {
    comm_.run(one);
    result.wrong = comm_.sum(count_wrong(shape_, comm_.rank(), recv_.data(), elements));
  }
  for (int i = 0; i < options_.warmup; ++i) {
    comm_.run(one);
  }
  comm_.barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options_.iterations; ++i) {
    comm_.run(one);
  }
  const std::chrono::duration<double, std::micro> spent = std::chrono::steady_clock::now() - start;
  const double mine = spent.count() / options_.iterations;
  result.time_us = comm_.sum(mine) / comm_.size();
  result.max_time_us = comm_.max(mine);
  const auto bytes = static_cast<double>(elements * element_);
  result.algbw_gbps = result.time_us > 0 ? bytes / (result.time_us * 1e3) : 0;
  result.busbw_gbps = result.algbw_gbps * bus_factor(options_.operation, comm_.size());
  return result;
}

Row Sweep::measure(std::size_t bytes) {
  Row row;
  row.elements = elements_for(options_.operation, bytes, element_, comm_.size());
  row.bytes = row.elements * element_;
  row.out_of_place = measure_placement(row.elements, false);
  if (has_in_place(options_.operation)) {
    row.in_place = measure_placement(row.elements, true);
  }
  return row;
}

}  // namespace railyard::bench
