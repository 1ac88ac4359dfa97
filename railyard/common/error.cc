#include "railyard/common/error.h"

#include <rdma/fi_errno.h>

#include <fmt/format.h>

namespace railyard {

Error::Error(const std::string& message) : std::runtime_error(message) {}

Error::Error(std::string call, int code, const std::string& message)
    : std::runtime_error(message), call_(std::move(call)), code_(code) {}

FabricError::FabricError(const std::string& call, int rc, const std::string& context)
    : Error(call, rc,
            fmt::format("{} failed: {} ({}){}{}", call, fi_strerror(rc < 0 ? -rc : rc), rc,
                        context.empty() ? "" : ": ", context)) {}

ConfigError::ConfigError(std::string input, std::string value, const std::string& expected)
    : Error(fmt::format("{}='{}' is invalid: {}", input, value, expected)),
      input_(std::move(input)),
      value_(std::move(value)),
      expected_(expected) {}

}  // namespace railyard
