#include "setting_subjects.h"

#include <algorithm>

#include "railyard/common/error.h"

namespace railyard::bench {

std::vector<SettingSubject> parse_setting_subjects(const std::vector<std::string>& entries) {
  std::vector<SettingSubject> subjects;
  for (const auto& entry : entries) {
    const auto first = entry.find('=');
    const auto second = first == std::string::npos ? first : entry.find('=', first + 1);
    if (first == 0 || second == std::string::npos || second == first + 1) {
      throw ConfigError("--setting", entry,
                        "expected NAME=VARIABLE=VALUE, e.g. nofailover=RAILYARD_RAIL_TIMEOUT=0");
    }
    const std::string name = entry.substr(0, first);
    const std::string variable = entry.substr(first + 1, second - first - 1);
    if (!variable.starts_with("RAILYARD_") && !variable.starts_with("FI_")) {
      throw ConfigError("--setting", entry,
                        "expected a variable of railyard's (RAILYARD_...) or libfabric's "
                        "(FI_...) after NAME=");
    }
    auto subject = std::find_if(subjects.begin(), subjects.end(),
                                [&](const SettingSubject& s) { return s.name == name; });
    if (subject == subjects.end()) {
      subjects.push_back(SettingSubject{name, {}});
      subject = subjects.end() - 1;
    }
    subject->environment.emplace_back(variable, entry.substr(second + 1));
  }
  return subjects;
}

}  // namespace railyard::bench
