#include "railyard/bootstrap/bootstrap_options.h"

#include <fmt/format.h>

#include <random>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/rstream/stream_address.h"

namespace railyard::bootstrap {

const char* to_string(BootstrapMethod method) noexcept {
  switch (method) {
    case BootstrapMethod::kAuto:
      return "auto";
    case BootstrapMethod::kPmix:
      return "pmix";
    case BootstrapMethod::kRoot:
      return "root";
    case BootstrapMethod::kMpi:
      return "mpi";
  }
  return "unknown";
}

BootstrapOptions BootstrapOptions::from_environment() {
  BootstrapOptions options;
  if (const auto text = env::get("RAILYARD_BOOTSTRAP")) {
    const std::string_view value = trim(*text);
    if (iequals(value, "auto")) {
      options.method = BootstrapMethod::kAuto;
    } else if (iequals(value, "pmix")) {
      options.method = BootstrapMethod::kPmix;
    } else if (iequals(value, "root")) {
      options.method = BootstrapMethod::kRoot;
    } else if (iequals(value, "mpi")) {
      options.method = BootstrapMethod::kMpi;
    } else {
      throw ConfigError("RAILYARD_BOOTSTRAP", *text, "expected auto, pmix, root or mpi");
    }
  }
  if (const auto text = env::get("RAILYARD_ROOT")) {
    // Checked now, so a typo is reported before any rank waits on it.
    (void)rstream::parse_stream_address("RAILYARD_ROOT", *text);
    options.root = *text;
  }
  if (const auto text = env::get("RAILYARD_JOB_KEY")) {
    if (text->size() > kMaxJobKey) {
      // A key is a secret: not even its start is printed.
      throw ConfigError("RAILYARD_JOB_KEY", fmt::format("<{} bytes>", text->size()),
                        "expected at most 256 bytes");
    }
    options.job_key = *text;
  }
  if (const auto text = env::get("RAILYARD_BOOTSTRAP_TIMEOUT")) {
    options.timeout = parse_duration("RAILYARD_BOOTSTRAP_TIMEOUT", *text, std::chrono::seconds(1),
                                     std::chrono::milliseconds(1), std::chrono::hours(24));
  }
  options.channel = rstream::ChannelOptions::from_environment();
  return options;
}

std::string random_job_key() {
  std::random_device device;  // /dev/urandom on Linux
  std::string key;
  for (int i = 0; i < 8; ++i) {
    key += fmt::format("{:08x}", device());
  }
  return key;
}

}  // namespace railyard::bootstrap
