#include "railyard/transports/rail_options.h"

#include "railyard/common/env.h"
#include "railyard/common/error.h"
#include "railyard/common/parse.h"

namespace railyard {

std::string default_provider() {
  const auto provider = env::get("RAILYARD_PROVIDER");
  if (!provider) {
    return kDefaultProvider;
  }
  if (trim(*provider).empty() || trim(*provider) != *provider) {
    throw ConfigError("RAILYARD_PROVIDER", *provider,
                      "expected a libfabric provider name such as tcp;ofi_rxm or "
                      "verbs;ofi_rxm, without spaces");
  }
  return *provider;
}

RailOptions RailOptions::from_environment() {
  RailOptions options;
  options.provider = default_provider();
  options.wait = WaitPolicy::from_environment();
  return options;
}

}  // namespace railyard
