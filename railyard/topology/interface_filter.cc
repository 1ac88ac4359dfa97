#include "railyard/topology/interface_filter.h"

#include <algorithm>

#include <fmt/format.h>

#include "railyard/common/error.h"
#include "railyard/topology/nic_discovery.h"

namespace railyard::topology {

InterfaceFilter InterfaceFilter::parse(std::string_view text, std::string_view input) {
  InterfaceFilter filter;
  filter.input_ = std::string(input);
  filter.text_ = std::string(text);
  constexpr const char* kExpected =
      "expected a comma list of interface name prefixes, '^' first to exclude them, '=' first "
      "to match whole names (e.g. 'eth,ib', '^docker,lo', '=eth0,eth2')";
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '^') {
    filter.exclude_ = true;
    rest.remove_prefix(1);
  }
  if (!rest.empty() && rest.front() == '=') {
    filter.exact_ = true;
    rest.remove_prefix(1);
  }
  if (rest.empty()) {
    throw ConfigError(filter.input_, filter.text_, kExpected);
  }
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    if (name.empty() || name.find_first_of(" \t^=") != std::string_view::npos) {
      throw ConfigError(filter.input_, filter.text_,
                        fmt::format("{}; entry '{}' is not an interface name", kExpected, name));
    }
    filter.names_.emplace_back(name);
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  return filter;
}

bool InterfaceFilter::matches(std::string_view name) const {
  const bool listed = std::any_of(names_.begin(), names_.end(), [&](const std::string& entry) {
    return exact_ ? name == entry : name.starts_with(entry);
  });
  return listed != exclude_;
}

std::vector<Nic> InterfaceFilter::apply(const std::vector<Nic>& nics) const {
  std::vector<Nic> out;
  std::copy_if(nics.begin(), nics.end(), std::back_inserter(out),
               [&](const Nic& nic) { return matches(nic.name); });
  if (out.empty()) {
    throw ConfigError(input_, text_,
                      fmt::format("expected a filter that keeps at least one of the NICs found: {}",
                                  nic_names(nics)));
  }
  return out;
}

}  // namespace railyard::topology
