// What railyard-info reports, gathered as one JSON document: the machine's
// NUMA nodes and NICs, the providers usable for rails, the effective
// FI_OFI_MRAIL_ADDR / FI_OFI_MRAIL_CONFIG tables, and the rank-to-rail
// mapping for a number of local ranks.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace railyard::info {

struct ReportOptions {
  std::string topology;          // XML file; empty: RAILYARD_TOPOLOGY or this machine
  unsigned local_size = 1;       // ranks per node to map
  std::string binding = "none";  // how the launcher binds them: none, core, numa
  bool include_loopback = false;
  bool include_down = false;
};

[[nodiscard]] nlohmann::json gather_report(const ReportOptions& options);

// The settings the report shows as invalid (FI_OFI_MRAIL_ADDR,
// FI_OFI_MRAIL_CONFIG, the mapping's variables); empty when all are valid.
[[nodiscard]] std::vector<std::string> invalid_settings(const nlohmann::json& report);

// The report as text for a terminal, like fi_info or ucx_info.
[[nodiscard]] std::string render_text(const nlohmann::json& report);

}  // namespace railyard::info
