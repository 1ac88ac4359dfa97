// Choosing the libfabric provider entry a rail opens, and explaining a refusal.
#pragma once

#include <string>
#include <vector>

#include "railyard/fabric/info.h"
#include "railyard/rail/bind_address.h"

namespace railyard::rail {

// The first fi_info whose provider is exactly `provider`, offering FI_EP_RDM
// with kRailCaps at `address` (nullptr: the provider's default interface).
// Never substitutes another provider. Throws Error saying why nothing matched:
// no such provider, no FI_EP_RDM endpoints, missing capabilities, unsupported
// modes, or no endpoint at that address.
[[nodiscard]] fabric::FabricInfo select_rail_info(const std::string& provider,
                                                  const BindAddress* address);

// The providers on this machine that offer FI_EP_RDM endpoints, in fi_getinfo order.
[[nodiscard]] std::vector<std::string> list_rdm_providers();

}  // namespace railyard::rail
