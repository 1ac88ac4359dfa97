#include "rounds.h"

#include <fmt/format.h>

#include <algorithm>

#include "tools/support/report.h"

namespace railyard::bench {

const Measurement* row_for(const std::vector<Measurement>& rows, std::uint64_t size) {
  for (const auto& row : rows) {
    if (row.size == size) {
      return &row;
    }
  }
  return nullptr;
}

const Measurement* row_for(const SubjectResult& subject, std::uint64_t size) {
  return row_for(subject.rows, size);
}

namespace {

// Each round's latency at `size`, where that round measured one.
std::vector<double> latencies_at(const SubjectResult& subject, std::uint64_t size) {
  std::vector<double> latencies;
  for (const auto& rows : subject.round_rows) {
    if (const Measurement* row = row_for(rows, size); row != nullptr && row->latency_us >= 0) {
      latencies.push_back(row->latency_us);
    }
  }
  return latencies;
}

}  // namespace

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
    for (const auto& round : rounds) {
      const SubjectResult& result = round[s];
      combined.round_rows.push_back(result.error.empty() ? result.rows
                                                         : std::vector<Measurement>{});
    }
    for (auto& row : combined.rows) {
      const std::vector<double> latencies = latencies_at(combined, row.size);
      std::vector<double> bandwidths;
      for (const auto& rows : combined.round_rows) {
        if (const Measurement* other = row_for(rows, row.size)) {
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
      const std::vector<double> latencies = latencies_at(subject, row.size);
      row.latency_us = latencies.empty() ? -1 : tools::median(latencies);
    }
  }
  return out;
}

std::optional<double> paired_latency_ratio(const std::vector<const SubjectResult*>& numerators,
                                           const SubjectResult& denominator, std::uint64_t size) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < denominator.round_rows.size(); ++r) {
    const Measurement* base = row_for(denominator.round_rows[r], size);
    if (base == nullptr || base->latency_us <= 0) {
      continue;
    }
    double best = -1;
    for (const SubjectResult* numerator : numerators) {
      const Measurement* row =
          r < numerator->round_rows.size() ? row_for(numerator->round_rows[r], size) : nullptr;
      if (row != nullptr && row->latency_us > 0 && (best < 0 || row->latency_us < best)) {
        best = row->latency_us;
      }
    }
    if (best > 0) {
      ratios.push_back(best / base->latency_us);
    }
  }
  if (ratios.empty()) {
    return std::nullopt;
  }
  return tools::median(ratios);
}

SlowLaunches slow_launches(const SubjectResult& combined, double factor) {
  SlowLaunches out;
  for (const auto& rows : combined.round_rows) {
    std::size_t sizes = 0;
    std::size_t slow_sizes = 0;
    for (const auto& row : rows) {
      const Measurement* lowest = row_for(combined, row.size);
      if (row.latency_us <= 0 || lowest == nullptr || lowest->latency_us <= 0) {
        continue;
      }
      ++sizes;
      if (row.latency_us > factor * lowest->latency_us) {
        ++slow_sizes;
      }
    }
    if (sizes != 0) {
      ++out.measured;
      if (2 * slow_sizes > sizes) {
        ++out.slow;
      }
    }
  }
  return out;
}

}  // namespace railyard::bench
