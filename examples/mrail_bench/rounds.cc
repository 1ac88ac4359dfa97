#include "rounds.h"

#include <fmt/format.h>

#include <algorithm>

#include "railyard_tools/report.h"

namespace railyard::bench {

const Measurement* row_for(const SubjectResult& subject, std::uint64_t size) {
  for (const auto& row : subject.rows) {
    if (row.size == size) {
      return &row;
    }
  }
  return nullptr;
}

std::vector<SubjectResult> combine_rounds(const std::vector<std::vector<SubjectResult>>& rounds) {
  if (rounds.empty()) {
    return {};
  }
  std::vector<SubjectResult> out;
  for (std::size_t s = 0; s < rounds.front().size(); ++s) {
    std::vector<const SubjectResult*> finished;
    std::vector<std::string> failures;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      const SubjectResult& result = rounds[r][s];
      if (result.error.empty()) {
        finished.push_back(&result);
      } else {
        failures.push_back(fmt::format("round {} of {}: {}", r + 1, rounds.size(), result.error));
      }
    }
    if (finished.empty()) {
      out.push_back(rounds.back()[s]);
      continue;
    }
    SubjectResult combined = *finished.back();
    combined.round_failures = std::move(failures);
    for (const SubjectResult* result : finished) {
      combined.round_rows.push_back(result->rows);
    }
    for (auto& row : combined.rows) {
      std::vector<double> latencies;
      std::vector<double> bandwidths;
      for (const SubjectResult* result : finished) {
        if (const Measurement* other = row_for(*result, row.size)) {
          if (other->latency_us >= 0) {
            latencies.push_back(other->latency_us);
          }
          bandwidths.push_back(other->bandwidth_mbps);
        }
      }
      row.latency_us =
          latencies.empty() ? -1 : *std::min_element(latencies.begin(), latencies.end());
      row.bandwidth_mbps = tools::median(bandwidths);
    }
    out.push_back(std::move(combined));
  }
  return out;
}

std::vector<SubjectResult> with_median_latency(const std::vector<SubjectResult>& combined) {
  std::vector<SubjectResult> out = combined;
  for (auto& subject : out) {
    for (auto& row : subject.rows) {
      std::vector<double> latencies;
      for (const auto& rows : subject.round_rows) {
        for (const auto& other : rows) {
          if (other.size == row.size && other.latency_us >= 0) {
            latencies.push_back(other.latency_us);
          }
        }
      }
      row.latency_us = latencies.empty() ? -1 : tools::median(latencies);
    }
  }
  return out;
}

}  // namespace railyard::bench
