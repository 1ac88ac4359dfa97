// railyard-bench's results as files: CSV, one line per size and placement
// (what scripts/plot-busbw.sh reads, several runs' files together), and
// JSON, the whole run.
#pragma once

#include <string>
#include <vector>

#include "run_info.h"

namespace railyard::bench {

// The header line alone, then one line per row and placement.
[[nodiscard]] std::string csv_header();
[[nodiscard]] std::string csv_rows(const RunInfo& info, const std::vector<Row>& rows);
[[nodiscard]] std::string json_report(const RunInfo& info, const std::vector<Row>& rows);

}  // namespace railyard::bench
