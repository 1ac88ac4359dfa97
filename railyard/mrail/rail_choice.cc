#include "railyard/mrail/rail_choice.h"

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/rail_addresses.h"
#include "railyard/topology/local_rails.h"

namespace railyard::mrail {

RailChoice rails_from_environment() {
  RailChoice choice;
  if (rails_named_in_environment()) {
    choice.rails = rail_addresses_from_environment();
    return choice;
  }
  try {
    const topology::LocalRails local = topology::rails_for_this_process();
    for (const auto& nic : local.mapping.rails) {
      choice.rails.push_back(nic.name);
    }
    choice.home_rail = 0;
    choice.home_reason = fmt::format("the topology's nearest NIC for this rank, {}",
                                     local.mapping.rails.front().name);
    return choice;
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    log::warn(
        "no rails from the topology ({}); using one rail on the provider's default "
        "interface. Set FI_OFI_MRAIL_ADDR to name the rails.",
        e.what());
  }
  choice.rails = {std::string()};
  return choice;
}

}  // namespace railyard::mrail
