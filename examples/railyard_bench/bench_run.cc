#include "bench_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "nccl_table.h"
#include "progress_line.h"
#include "railyard_tools/report.h"
#include "result_export.h"

namespace railyard::bench {
namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) {
    return "?";
  }
  return name.data();
}

// What this rank sent over each rail since `before`.
std::string rail_line(const BenchComm& comm, const std::vector<RailBytes>& before) {
  const std::vector<RailBytes> after = comm.rail_bytes();
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < after.size(); ++i) {
    const std::uint64_t earlier = i < before.size() ? before[i].bytes : 0;
    parts.push_back(
        fmt::format("{} {}B", after[i].rail, tools::size_text(after[i].bytes - earlier)));
  }
  return fmt::format(
      "Rank {:3} sent: {}", comm.rank(),
      parts.empty() ? "(not counted by this library)" : fmt::to_string(fmt::join(parts, ", ")));
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    throw std::runtime_error(fmt::format("cannot write '{}'", path));
  }
}

}  // namespace

int run_bench(BenchComm& comm, const BenchOptions& options) {
  const bool leader = comm.rank() == 0;
  if (options.sweep.root >= comm.size()) {
    throw std::invalid_argument(fmt::format("-r {}: expected a rank below the job's {} ranks",
                                            options.sweep.root, comm.size()));
  }
  RunInfo info{.subject = options.label,
               .library = comm.library(),
               .algorithm = options.algorithm,
               .sweep = options.sweep,
               .ranks = comm.size(),
               .hosts = static_cast<int>(comm.sum(std::uint64_t{comm.local_rank() == 0 ? 1U : 0U})),
               .min_bytes = options.min_bytes,
               .max_bytes = options.max_bytes,
               .factor = options.factor,
               .step = options.step};
  if (info.subject.empty()) {
    info.subject = options.algorithm.empty()
                       ? info.library
                       : fmt::format("{}:{}", info.library, options.algorithm);
  }
  const auto rank_lines =
      gather_lines(comm, fmt::format("Rank {:3} Pid {:7} on {:>12}: {}", comm.rank(), getpid(),
                                     host_name(), comm.paths()));
  if (leader) {
    fmt::print("{}{}", table_header(info, rank_lines), column_header());
    std::fflush(stdout);
  }
  const std::vector<RailBytes> before = comm.rail_bytes();
  Sweep sweep(comm, options.sweep, options.max_bytes);
  const std::vector<std::size_t> sizes =
      options.sweep.operation == Operation::kBarrier
          ? std::vector<std::size_t>{0}
          : sweep_sizes(options.min_bytes, options.max_bytes, options.factor, options.step);
  std::vector<Row> rows;
  {
    ProgressLine progress(std::string(to_string(options.sweep.operation)), sizes.size(), leader);
    for (const std::size_t bytes : sizes) {
      rows.push_back(sweep.measure(bytes));
      if (leader) {
        fmt::print("{}", table_row(info, rows.back()));
        std::fflush(stdout);
      }
      progress.measured(rows.size(), bytes);
    }
  }
  const auto rail_lines = gather_lines(comm, rail_line(comm, before));
  if (leader) {
    fmt::print("{}# Bytes each rank sent over its rails during the sweep (checks included)\n",
               table_footer(rows));
    for (const std::string& line : rail_lines) {
      fmt::print("#  {}\n", line);
    }
    std::fflush(stdout);
    if (!options.csv.empty()) {
      write_file(options.csv, csv_header() + csv_rows(info, rows));
    }
    if (!options.json.empty()) {
      write_file(options.json, json_report(info, rows));
    }
  }
  return total_wrong(rows) == 0 ? 0 : 1;
}

}  // namespace railyard::bench
