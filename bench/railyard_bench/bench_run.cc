#include "bench_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "nccl_table.h"
#include "progress_line.h"
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

// 7.0 MiB, 512 B.
std::string bytes_text(std::uint64_t bytes) {
  constexpr std::array<const char*, 4> kUnits{"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) {
    return fmt::format("{} B", bytes);
  }
  auto value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

// What crossed each of this rank's rails since `before`, a line per rail
// in the footer's columns.
std::string rail_rows(const BenchComm& comm, const std::vector<RailBytes>& before) {
  const std::vector<RailBytes> after = comm.rail_bytes();
  if (after.empty()) {
    return fmt::format("{:>6}  (not counted by this library)", comm.rank());
  }
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < after.size(); ++i) {
    const RailBytes earlier = i < before.size() ? before[i] : RailBytes{};
    rows.push_back(fmt::format("{:>6}  {:<40} {:>12} {:>12}", comm.rank(), after[i].rail,
                               bytes_text(after[i].sent - earlier.sent),
                               bytes_text(after[i].received - earlier.received)));
  }
  return fmt::to_string(fmt::join(rows, "\n"));
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
  const std::size_t smallest =
      smallest_size(options.sweep.operation, collectives::size_of(options.sweep.type), comm.size());
  const bool sized = options.sweep.operation != Operation::kBarrier;
  if (sized && options.max_bytes < smallest) {
    throw std::invalid_argument(
        fmt::format("-e {}: the smallest {} of {} on {} ranks is {} bytes; expected -e {} or more",
                    options.max_bytes, to_string(options.sweep.operation),
                    to_string(options.sweep.type), comm.size(), smallest, smallest));
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
  // Sizes below one element would measure nothing: they start at one, said once.
  if (sized && options.min_bytes < smallest) {
    if (leader) {
      fmt::print(stderr,
                 "{}: -b {} is below the smallest {} of {} on {} ranks ({} bytes): the sizes "
                 "start at {} bytes\n",
                 options.program, options.min_bytes, to_string(options.sweep.operation),
                 to_string(options.sweep.type), comm.size(), smallest, smallest);
    }
    info.min_bytes = smallest;
  }
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
          : sweep_sizes(info.min_bytes, options.max_bytes, options.factor, options.step);
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
  const auto rail_blocks = gather_lines(comm, rail_rows(comm, before));
  if (leader) {
    fmt::print(
        "{}# Bytes over each rail during the sweep, checks included (a rendezvous read\n"
        "# counts as sent where its data left and received where it arrived)\n"
        "#{:>6}  {:<40} {:>12} {:>12}\n",
        table_footer(rows), "rank", "rail", "sent", "received");
    for (const std::string& block : rail_blocks) {
      std::size_t start = 0;
      while (start <= block.size()) {
        const std::size_t end = std::min(block.find('\n', start), block.size());
        fmt::print("#{}\n", block.substr(start, end - start));
        start = end + 1;
      }
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
