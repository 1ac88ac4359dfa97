#include "railyard/common/detail/env.h"

#include <cstdlib>

namespace railyard::env {

std::optional<std::string> get(const char* name) {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): the environment is never written by railyard.
  const char* value = std::getenv(name);
  if (value == nullptr) {
    return std::nullopt;
  }
  return std::string(value);
}

std::string get_or(const char* name, std::string_view fallback) {
  auto value = get(name);
  return value ? *value : std::string(fallback);
}

}  // namespace railyard::env
