#include "railyard/transports/rail_options.h"

#include "railyard/common/env.h"
#include "railyard/common/error.h"
#include "railyard/common/parse.h"

namespace railyard {

RailOptions RailOptions::from_environment() {
  RailOptions options;
  if (const auto provider = env::get("RAILYARD_PROVIDER")) {
    if (trim(*provider).empty() || trim(*provider) != *provider) {
      throw ConfigError("RAILYARD_PROVIDER", *provider,
                        "expected a libfabric provider name such as tcp;ofi_rxm or "
                        "verbs;ofi_rxm, without spaces");
    }
    options.provider = *provider;
  }
  options.wait = WaitPolicy::from_environment();
  return options;
}

}  // namespace railyard
