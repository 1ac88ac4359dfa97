#include "railyard/mrail/rail_addresses.h"

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/rail/bind_address.h"

namespace railyard::mrail {

std::vector<std::string> parse_rail_addresses(std::string_view input, std::string_view text) {
  if (trim(text).empty()) {
    throw ConfigError(std::string(input), std::string(text),
                      "expected a comma list of rail addresses (interface names, IP addresses, "
                      "host names or FI_ADDR_STRs)");
  }
  std::vector<std::string> out;
  std::vector<rail::BindAddress> resolved;
  const auto pieces = split(text, ',');
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::string_view entry = pieces[i];
    if (trim(entry).empty()) {
      throw ConfigError(std::string(input), std::string(text),
                        fmt::format("entry {} is empty; expected a comma list of rail addresses "
                                    "without empty entries",
                                    i + 1));
    }
    rail::BindAddress address;
    try {
      address = rail::resolve_bind_address(input, entry);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string(input), std::string(text),
                        fmt::format("entry {} '{}': {}", i + 1, entry, e.expected()));
    }
    for (std::size_t j = 0; j < resolved.size(); ++j) {
      // Port 0 asks for an ephemeral port, so two such entries still clash.
      if (resolved[j].host == address.host && resolved[j].port == address.port) {
        throw ConfigError(std::string(input), std::string(text),
                          fmt::format("entries {} '{}' and {} '{}' are the same address {}; "
                                      "each rail needs its own",
                                      j + 1, out[j], i + 1, entry, address.host));
      }
    }
    out.emplace_back(entry);
    resolved.push_back(std::move(address));
  }
  return out;
}

bool rails_named_in_environment() {
  return env::get(kAddressVariable) || env::get(kDeprecatedAddressVariable);
}

std::vector<std::string> rail_addresses_from_environment() {
  const auto current = env::get(kAddressVariable);
  const auto deprecated = env::get(kDeprecatedAddressVariable);
  if (current) {
    if (deprecated) {
      log::warn("{} is deprecated and ignored: {} is set", kDeprecatedAddressVariable,
                kAddressVariable);
    }
    return parse_rail_addresses(kAddressVariable, *current);
  }
  if (deprecated) {
    log::warn("{} is deprecated: use {}", kDeprecatedAddressVariable, kAddressVariable);
    return parse_rail_addresses(kDeprecatedAddressVariable, *deprecated);
  }
  return {std::string()};
}

}  // namespace railyard::mrail
