#include "result_export.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace railyard::bench {
namespace {

std::string_view redop_of(const SweepOptions& sweep) {
  return reduces(sweep.operation) ? collectives::to_string(sweep.op) : "none";
}

int root_of(const SweepOptions& sweep) { return rooted(sweep.operation) ? sweep.root : -1; }

std::string csv_line(const RunInfo& info, const Row& row, std::string_view placement,
                     const Measurement& measured) {
  const SweepOptions& sweep = info.sweep;
  return fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{:.3f},{:.6f},{:.6f},{},{:.3f}\n", info.subject,
      to_string(sweep.operation), info.ranks, info.hosts, collectives::to_string(sweep.type),
      redop_of(sweep), root_of(sweep), row.bytes, row.elements, placement, measured.time_us,
      measured.algbw_gbps, measured.busbw_gbps,
      measured.wrong ? fmt::format("{}", *measured.wrong) : std::string(), measured.max_time_us);
}

nlohmann::json json_of(const Measurement& measured) {
  nlohmann::json out{{"time_us", measured.time_us},
                     {"max_time_us", measured.max_time_us},
                     {"algbw_gbps", measured.algbw_gbps},
                     {"busbw_gbps", measured.busbw_gbps}};
  out["wrong"] = measured.wrong ? nlohmann::json(*measured.wrong) : nlohmann::json(nullptr);
  return out;
}

}  // namespace

std::string csv_header() {
  return "subject,operation,ranks,hosts,type,redop,root,size,count,placement,time_us,algbw_gbps,"
         "busbw_gbps,wrong,max_time_us\n";
}

std::string csv_rows(const RunInfo& info, const std::vector<Row>& rows) {
  std::string out;
  for (const Row& row : rows) {
    out += csv_line(info, row, "out-of-place", row.out_of_place);
    if (row.in_place) {
      out += csv_line(info, row, "in-place", *row.in_place);
    }
  }
  return out;
}

std::string json_report(const RunInfo& info, const std::vector<Row>& rows) {
  const SweepOptions& sweep = info.sweep;
  nlohmann::json out{{"tool", "railyard-bench"},    {"subject", info.subject},
                     {"library", info.library},     {"operation", to_string(sweep.operation)},
                     {"algorithm", info.algorithm}, {"ranks", info.ranks},
                     {"hosts", info.hosts},         {"type", collectives::to_string(sweep.type)},
                     {"redop", redop_of(sweep)},    {"root", root_of(sweep)},
                     {"min_bytes", info.min_bytes}, {"max_bytes", info.max_bytes},
                     {"factor", info.factor},       {"step_bytes", info.step},
                     {"warmup", sweep.warmup},      {"iterations", sweep.iterations},
                     {"check", sweep.check},        {"avg_busbw_gbps", average_busbw(rows)},
                     {"wrong", total_wrong(rows)}};
  nlohmann::json& list = out["rows"] = nlohmann::json::array();
  for (const Row& row : rows) {
    nlohmann::json entry{
        {"size", row.bytes}, {"count", row.elements}, {"out_of_place", json_of(row.out_of_place)}};
    entry["in_place"] = row.in_place ? json_of(*row.in_place) : nlohmann::json(nullptr);
    list.push_back(std::move(entry));
  }
  return out.dump(2) + "\n";
}

}  // namespace railyard::bench
