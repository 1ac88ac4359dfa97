#include "host_cpus.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "railyard/common/error.h"
#include "railyard/topology/process_binding.h"
#include "tools/support/comma_list.h"

namespace railyard::bench {

void parse_host_cpus(const std::string& text, Hosts& hosts) {
  hosts.cpu_a.reset();
  hosts.cpu_b.reset();
  if (text == "none") {
    return;
  }
  const auto allowed = topology::process_binding();
  const std::string expected = fmt::format(
      "expected none or two distinct CPUs, host a's then host b's, from those this process may "
      "run on ({})",
      fmt::join(allowed, ","));
  std::vector<std::string> entries;
  try {
    entries = tools::comma_list("--bind", text);
  } catch (const ConfigError&) {
    throw ConfigError("--bind", text, expected);  // says more than "empty entries"
  }
  if (entries.size() != 2) {
    throw ConfigError("--bind", text, expected);
  }
  const auto usable = [&](const std::string& entry) {
    return std::any_of(allowed.begin(), allowed.end(),
                       [&](unsigned cpu) { return entry == std::to_string(cpu); });
  };
  if (entries[0] == entries[1] || !usable(entries[0]) || !usable(entries[1])) {
    throw ConfigError("--bind", text, expected);
  }
  hosts.cpu_a = static_cast<unsigned>(std::stoul(entries[0]));
  hosts.cpu_b = static_cast<unsigned>(std::stoul(entries[1]));
}

std::string own_cpus() { return fmt::format("{}", fmt::join(topology::process_binding(), ",")); }

std::string binding_mismatch(const std::string& process, const std::string& cpus,
                             const std::optional<unsigned>& cpu) {
  if (!cpu || cpus == std::to_string(*cpu)) {
    return {};
  }
  return fmt::format("{} ran on CPUs [{}], not on CPU {} alone as --bind asked", process, cpus,
                     *cpu);
}

}  // namespace railyard::bench
