// Settings railyard gives libfabric's providers where their own defaults
// cost a job more than they give it, unless the user chose a value.
//
// libfabric offers some settings only as environment variables, which a
// provider reads once, when the process's first fi_getinfo initialises
// libfabric. So railyard puts them in the environment (setenv, never
// overwriting) when its library is loaded: before main(), before any other
// thread can be reading the environment, and before railyard or an MPI
// library linked with it calls fi_getinfo. A process whose libfabric was
// initialised before railyard was loaded (a late dlopen) keeps libfabric's
// defaults.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace railyard::rail {

struct ProviderDefault {
  const char* variable;
  const char* value;  // railyard's value
  const char* why;    // for the log line
};

// The settings railyard applies when the rails' default provider
// (RAILYARD_PROVIDER) is `provider`; docs/environment.md lists them.
[[nodiscard]] std::vector<ProviderDefault> provider_defaults_for(const std::string& provider);

// How one setting stood once the library was loaded.
struct AppliedDefault {
  ProviderDefault setting;
  std::optional<std::string> user_value;  // set before railyard was loaded
};
[[nodiscard]] const std::vector<AppliedDefault>& applied_provider_defaults();

// Logs, once per process at info level, each setting as it stands: set by
// railyard, or left as the user set it. Rails call it when they open.
void log_provider_defaults();

}  // namespace railyard::rail
