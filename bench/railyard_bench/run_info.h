// What one railyard-bench run measured, and how: the header of every
// output, and the subject's name in the CSV and JSON files.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sweep.h"

namespace railyard::bench {

struct RunInfo {
  std::string subject;    // --label, or the library and algorithm
  std::string library;    // BenchComm::library()
  std::string algorithm;  // "" for the table's choice
  SweepOptions sweep;
  int ranks = 0;
  int hosts = 0;
  std::size_t min_bytes = 0;
  std::size_t max_bytes = 0;
  std::size_t factor = 0;
  std::size_t step = 0;
};

// The mean busbw over every measured row and placement (nccl-tests'
// "Avg bus bandwidth"), and every rank's wrong elements in total.
[[nodiscard]] double average_busbw(const std::vector<Row>& rows) noexcept;
[[nodiscard]] std::uint64_t total_wrong(const std::vector<Row>& rows) noexcept;

}  // namespace railyard::bench
