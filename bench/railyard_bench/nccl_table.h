// railyard-bench's report on stdout, in nccl-tests' layout (its columns,
// its bus bandwidth, its footer), so tools that read nccl-tests output read
// this too. Bandwidths carry three decimals rather than two: 1 Gbit/s rails
// carry 0.125 GB/s each.
#pragma once

#include <string>
#include <vector>

#include "run_info.h"

namespace railyard::bench {

// The lines before the table: the run's parameters, and one line per rank
// (`rank_lines`, from gather_lines) saying where it ran and over what.
[[nodiscard]] std::string table_header(const RunInfo& info,
                                       const std::vector<std::string>& rank_lines);
// The two lines naming the columns.
[[nodiscard]] std::string column_header();
[[nodiscard]] std::string table_row(const RunInfo& info, const Row& row);
// The wrong-values and average-busbw lines.
[[nodiscard]] std::string table_footer(const std::vector<Row>& rows);

}  // namespace railyard::bench
