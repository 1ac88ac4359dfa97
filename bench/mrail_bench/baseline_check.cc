#include "baseline_check.h"

#include <fmt/format.h>

#include "tools/support/report.h"

namespace railyard::bench {
namespace {

const Measurement* smallest_with_latency(const SubjectResult& subject) {
  const Measurement* found = nullptr;
  for (const auto& row : subject.rows) {
    if (row.latency_us > 0 && (found == nullptr || row.size < found->size)) {
      found = &row;
    }
  }
  return found;
}

const Measurement* at_size(const SubjectResult& subject, std::uint64_t size) {
  for (const auto& row : subject.rows) {
    if (row.size == size && row.bandwidth_mbps > 0) {
      return &row;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> misconfiguration(const SubjectResult& baseline,
                                            const SubjectResult* one_rail) {
  if (!baseline.error.empty()) {
    return std::nullopt;  // it failed: reported as such
  }
  if (const Measurement* row = smallest_with_latency(baseline);
      row != nullptr && row->size <= kLatencyCheckUpTo &&
      row->latency_us > kMisconfiguredLatencyUs) {
    return fmt::format(
        "misconfigured baseline: its latency at {} is {:.1f} us, above the {:.0f} us no network "
        "here takes (were both ranks bound to one core?)",
        tools::size_text(row->size), row->latency_us, kMisconfiguredLatencyUs);
  }
  if (one_rail == nullptr || one_rail == &baseline || !one_rail->error.empty()) {
    return std::nullopt;
  }
  const Measurement* checked = nullptr;
  const Measurement* reference = nullptr;
  for (const auto& row : baseline.rows) {
    const Measurement* rail = at_size(*one_rail, row.size);
    if (row.size >= kBandwidthCheckFrom && row.bandwidth_mbps > 0 && rail != nullptr &&
        (checked == nullptr || row.size < checked->size)) {
      checked = &row;
      reference = rail;
    }
  }
  if (checked != nullptr && checked->bandwidth_mbps < kOneRailSlack * reference->bandwidth_mbps) {
    return fmt::format(
        "misconfigured baseline: it carries {:.1f} MB/s at {}, less than the {:.1f} MB/s of one "
        "raw rail in the same run (does it use the rails?)",
        checked->bandwidth_mbps, tools::size_text(checked->size), reference->bandwidth_mbps);
  }
  return std::nullopt;
}

}  // namespace railyard::bench
