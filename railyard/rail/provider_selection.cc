#include "railyard/rail/provider_selection.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/rail/rail_limits.h"

namespace railyard::rail {
namespace {

fabric::FabricInfo rail_hints(const std::string& provider) {
  auto hints = fabric::FabricInfo::allocate();
  hints->caps = kRailCaps;
  hints->mode = kRailModes;
  hints->ep_attr->type = FI_EP_RDM;
  hints->tx_attr->msg_order = rail_order(provider);
  hints->rx_attr->msg_order = rail_order(provider);
  hints->domain_attr->mr_mode = static_cast<int>(kRailMrModes);
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->domain_attr->av_type = FI_AV_TABLE;
  hints.set_provider(provider);
  return hints;
}

std::string where(const BindAddress* address) {
  if (address == nullptr) {
    return "on its default interface";
  }
  return fmt::format("at {} (interface {}, from '{}')", address->host, address->interface,
                     address->spec);
}

// Every entry of `list` whose provider is exactly `provider`.
std::vector<const fi_info*> exact_matches(const fabric::FabricInfo& list,
                                          const std::string& provider) {
  std::vector<const fi_info*> out;
  for (const fi_info* it = list.get(); it != nullptr; it = it->next) {
    if (it->fabric_attr->prov_name != nullptr && provider == it->fabric_attr->prov_name) {
      out.push_back(it);
    }
  }
  return out;
}

std::vector<std::string> suggestions_for(const std::string& provider) {
  std::vector<std::string> out;
  for (const auto& name : list_rdm_providers()) {
    if (name.starts_with(provider + ";")) {
      out.push_back("'" + name + "'");
    }
  }
  return out;
}

[[noreturn]] void explain_refusal(const std::string& provider, const BindAddress* address) {
  const std::string rdm = join_list(list_rdm_providers(), "and");

  // 1. Does a provider of that name exist at all?
  auto any_hints = fabric::FabricInfo::allocate();
  any_hints.set_provider(provider);
  fabric::FabricInfo any;
  const int any_rc = fabric::get_info(nullptr, nullptr, 0, any_hints, any);
  const auto named = any_rc == 0 ? exact_matches(any, provider) : std::vector<const fi_info*>{};
  if (named.empty()) {
    const auto layered = suggestions_for(provider);
    throw Error(fmt::format(
        "no libfabric provider is named '{}'{}; providers offering FI_EP_RDM "
        "here: {}",
        provider,
        layered.empty() ? "" : fmt::format(" (did you mean {}?)", join_list(layered, "or")),
        rdm.empty() ? "none" : rdm));
  }

  // 2. Does it offer reliable datagram endpoints?
  const bool has_rdm = std::any_of(named.begin(), named.end(), [](const fi_info* info) {
    return info->ep_attr->type == FI_EP_RDM;
  });
  if (!has_rdm) {
    const auto layered = suggestions_for(provider);
    throw Error(
        fmt::format("provider '{}' offers no FI_EP_RDM endpoints, which a rail needs{}", provider,
                    layered.empty() ? "" : fmt::format(" (try {})", join_list(layered, "or"))));
  }

  // 3. Capabilities, modes and memory registration modes.
  std::uint64_t caps = 0;
  std::uint64_t modes = ~std::uint64_t{0};
  for (const fi_info* info : named) {
    if (info->ep_attr->type == FI_EP_RDM) {
      caps |= info->caps;
      modes &= info->mode;
    }
  }
  if ((caps & kRailCaps) != kRailCaps) {
    throw Error(fmt::format("provider '{}' cannot carry a rail: it lacks {} (a rail needs {})",
                            provider, caps_string(kRailCaps & ~caps), caps_string(kRailCaps)));
  }
  if ((modes & ~kRailModes) != 0) {
    throw Error(
        fmt::format("provider '{}' requires operating modes 0x{:x} that railyard does "
                    "not implement (it handles FI_CONTEXT and FI_CONTEXT2)",
                    provider, modes & ~kRailModes));
  }

  // 4. Then it is the address.
  if (address != nullptr) {
    std::set<std::string> domains;
    for (const fi_info* info : named) {
      if (info->ep_attr->type == FI_EP_RDM && info->domain_attr->name != nullptr) {
        domains.insert(info->domain_attr->name);
      }
    }
    throw Error(
        fmt::format("provider '{}' has no FI_EP_RDM endpoint {}; its domains here: {}", provider,
                    where(address),
                    join_list(std::vector<std::string>(domains.begin(), domains.end()), "and")));
  }
  throw Error(
      fmt::format("provider '{}' offers no FI_EP_RDM endpoint with {} and memory "
                  "registration modes railyard handles",
                  provider, caps_string(kRailCaps)));
}

}  // namespace

std::vector<std::string> list_rdm_providers() {
  auto hints = fabric::FabricInfo::allocate();
  hints->ep_attr->type = FI_EP_RDM;
  fabric::FabricInfo list;
  if (fabric::get_info(nullptr, nullptr, 0, hints, list) != 0) {
    return {};
  }
  std::vector<std::string> out;
  for (const fi_info* it = list.get(); it != nullptr; it = it->next) {
    const std::string name =
        it->fabric_attr->prov_name != nullptr ? it->fabric_attr->prov_name : "";
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

fabric::FabricInfo select_rail_info(const std::string& provider, const BindAddress* address) {
  const auto hints = rail_hints(provider);
  const std::string service = address != nullptr ? std::to_string(address->port) : std::string();
  fabric::FabricInfo list;
  const int rc = fabric::get_info(address != nullptr ? address->host.c_str() : nullptr,
                                  address != nullptr ? service.c_str() : nullptr,
                                  address != nullptr ? FI_SOURCE : 0, hints, list);
  if (rc == -FI_ENODATA) {
    explain_refusal(provider, address);
  }
  check_fabric(rc, "fi_getinfo",
               fmt::format("looking for provider '{}' {}", provider, where(address)));
  const auto matches = exact_matches(list, provider);
  if (matches.empty()) {
    explain_refusal(provider, address);
  }
  // Keep the chosen entry alone: the rest of the list is freed with `list`.
  return fabric::FabricInfo::copy_of(*matches.front());
}

}  // namespace railyard::rail
