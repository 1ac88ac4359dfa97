// --setting NAME=VARIABLE=VALUE: railyard measured with an environment
// variable set, beside the same run without it, so the cost of a setting
// (failover's copies, another fragment size) is a ratio from one run.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace railyard::bench {

struct SettingSubject {
  std::string name;
  std::vector<std::pair<std::string, std::string>> environment;  // in the order given
};

// Groups the entries by NAME (several entries with one NAME set several
// variables). Throws ConfigError naming --setting for an entry that is not
// NAME=VARIABLE=VALUE, or whose variable is not one of railyard's
// (RAILYARD_*) or libfabric's (FI_*).
[[nodiscard]] std::vector<SettingSubject> parse_setting_subjects(
    const std::vector<std::string>& entries);

}  // namespace railyard::bench
