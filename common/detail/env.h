// Reading railyard's environment variables. The environment is only ever read,
// never modified (ofi_mrail's parser writes into getenv()'s storage).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace railyard::env {

// The variable's value, or nullopt when it is unset. An empty value counts as
// set: callers decide whether empty is meaningful.
[[nodiscard]] std::optional<std::string> get(const char* name);

// The variable's value, or `fallback` when unset.
[[nodiscard]] std::string get_or(const char* name, std::string_view fallback);

}  // namespace railyard::env
