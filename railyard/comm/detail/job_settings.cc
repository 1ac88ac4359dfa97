#include "railyard/comm/detail/job_settings.h"

#include <fmt/format.h>

#include <cstddef>
#include <map>
#include <string_view>

#include "railyard/common/error.h"
#include "railyard/mrail/options.h"

namespace railyard::comm::detail {
namespace {

constexpr std::string_view kUnset = "(unset)";

// "rank 3", "ranks 0, 1 and 4" (ascending).
std::string ranks_text(const std::vector<int>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : (i + 1 == ranks.size() ? " and " : ", "), ranks[i]);
  }
  return out;
}

}  // namespace

std::vector<JobSetting> job_settings(const CommunicatorOptions& options) {
  // The endpoint's options as it will read them; the rails are chosen
  // later, per rank, and need not agree.
  const mrail::Options endpoint = mrail::Options::from_environment(mrail::RailChoice{});
  std::vector<JobSetting> settings;
  settings.push_back({"RAILYARD_ALGO", options.algorithms.spec().empty()
                                           ? std::string(kUnset)
                                           : options.algorithms.spec()});
  settings.push_back({"RAILYARD_SHM", to_string(options.shared_memory)});
  settings.push_back({"RAILYARD_HOST_SEGMENT", options.host_segment ? "on" : "off"});
  settings.push_back({"FI_OFI_MRAIL_CONFIG", endpoint.policies.describe()});
  settings.push_back({"RAILYARD_EAGER_LIMIT", fmt::format("{} bytes", endpoint.eager_limit)});
  settings.push_back(
      {"RAILYARD_FRAGMENT_SIZE", endpoint.fragment_size == 0
                                     ? std::string("chosen by provider")
                                     : fmt::format("{} bytes", endpoint.fragment_size)});
  // Only whether there is failover: each rank may time its paths out alike
  // or not, but a rank that keeps copies for resending needs acknowledgements.
  settings.push_back({"RAILYARD_RAIL_TIMEOUT", endpoint.rail_timeout.count() == 0
                                                   ? "0 (no rail failover)"
                                                   : "not 0 (rail failover on)"});
  for (const auto& [name, value] : options.caller_job_settings) {
    settings.push_back({name, value});
  }
  return settings;
}

void check_job_settings_agree(const std::vector<std::vector<JobSetting>>& by_rank, int rank) {
  const std::vector<JobSetting>& mine = by_rank.at(static_cast<std::size_t>(rank));
  for (std::size_t index = 0; index < mine.size(); ++index) {
    // value -> the ranks that hold it, in value order; ranks ascending.
    std::map<std::string, std::vector<int>> holders;
    for (std::size_t other = 0; other < by_rank.size(); ++other) {
      const std::vector<JobSetting>& theirs = by_rank[other];
      const std::string value = index < theirs.size() && theirs[index].name == mine[index].name
                                    ? theirs[index].value
                                    : std::string("(not sent: another railyard version)");
      holders[value].push_back(static_cast<int>(other));
    }
    if (holders.size() == 1) {
      continue;
    }
    std::string spread;
    for (const auto& [value, ranks] : holders) {
      spread += fmt::format("{}'{}' on {}", spread.empty() ? "" : ", ", value, ranks_text(ranks));
    }
    throw ConfigError(
        mine[index].name, mine[index].value,
        fmt::format(
            "expected the same value on every rank of the job, since it changes the "
            "wire protocol, the collectives' algorithms or the calls the MPI shim carries; the "
            "ranks have {}",
            spread));
  }
}

}  // namespace railyard::comm::detail
