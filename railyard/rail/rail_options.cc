#include "railyard/rail/rail_options.h"

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::rail {

std::string default_provider() {
  const auto provider = env::get("RAILYARD_PROVIDER");
  if (!provider) {
    return kDefaultProvider;
  }
  if (provider->empty() || provider->find_first_of(" \t") != std::string::npos) {
    throw ConfigError("RAILYARD_PROVIDER", *provider,
                      "expected a libfabric provider name such as tcp;ofi_rxm or "
                      "verbs;ofi_rxm, without spaces");
  }
  return *provider;
}

std::chrono::milliseconds post_timeout_from_environment() {
  if (const auto text = env::get("RAILYARD_POST_TIMEOUT_MS")) {
    return std::chrono::milliseconds(parse_uint("RAILYARD_POST_TIMEOUT_MS", *text, 1, 3'600'000));
  }
  return RailOptions{}.post_timeout;
}

RailOptions RailOptions::from_environment() {
  RailOptions options;
  options.provider = default_provider();
  options.post_timeout = post_timeout_from_environment();
  options.wait = WaitPolicy::from_environment();
  return options;
}

}  // namespace railyard::rail
