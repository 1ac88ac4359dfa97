#include "nccl_table.h"

#include <fmt/format.h>

namespace railyard::bench {
namespace {

std::string time_text(double us) {
  if (us >= 10000) {
    return fmt::format("{:7.0f}", us);
  }
  return us >= 100 ? fmt::format("{:7.1f}", us) : fmt::format("{:7.2f}", us);
}

std::string placement_columns(const Measurement& measured) {
  const std::string wrong = measured.wrong ? fmt::format("{}", *measured.wrong) : "N/A";
  return fmt::format("  {}  {:6.3f}  {:6.3f}  {:>5}", time_text(measured.time_us),
                     measured.algbw_gbps, measured.busbw_gbps, wrong);
}

}  // namespace

std::string table_header(const RunInfo& info, const std::vector<std::string>& rank_lines) {
  const SweepOptions& sweep = info.sweep;
  std::string out =
      fmt::format("# railyard-bench {}: {} ranks on {} host{}, {}, algorithm: {}\n",
                  to_string(sweep.operation), info.ranks, info.hosts, info.hosts == 1 ? "" : "s",
                  info.library, info.algorithm.empty() ? "the table's choice" : info.algorithm);
  const std::string step =
      info.step != 0 ? fmt::format("{}(bytes)", info.step) : fmt::format("{}(factor)", info.factor);
  out += fmt::format(
      "# minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} validation: {}\n",
      info.min_bytes, info.max_bytes, step, sweep.warmup, sweep.iterations, sweep.check ? 1 : 0);
  out += "#\n# Using ranks\n";
  for (const std::string& line : rank_lines) {
    out += fmt::format("#  {}\n", line);
  }
  return out + "#\n";
}

std::string column_header() {
  return fmt::format(
      "#{:>63}{:>35}\n"
      "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>5}  {:>7}  {:>6}  {:>6}  "
      "{:>5}\n"
      "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>5}  {:>7}  {:>6}  {:>6}  "
      "{:>5}\n",
      "out-of-place", "in-place", "size", "count", "type", "redop", "root", "time", "algbw",
      "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "", "", "",
      "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

std::string table_row(const RunInfo& info, const Row& row) {
  const SweepOptions& sweep = info.sweep;
  const std::string_view redop =
      reduces(sweep.operation) ? collectives::to_string(sweep.op) : "none";
  const int root = rooted(sweep.operation) ? sweep.root : -1;
  std::string out = fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", row.bytes, row.elements,
                                collectives::to_string(sweep.type), redop, root);
  out += placement_columns(row.out_of_place);
  if (row.in_place) {
    out += placement_columns(*row.in_place);
  } else {
    out += fmt::format("  {:>7}  {:>6}  {:>6}  {:>5}", "-", "-", "-", "N/A");
  }
  return out + "\n";
}

std::string table_footer(const std::vector<Row>& rows) {
  const std::uint64_t wrong = total_wrong(rows);
  return fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:.4f}\n#\n", wrong,
                     wrong == 0 ? "OK" : "FAILED", average_busbw(rows));
}

}  // namespace railyard::bench
