// A tool's comma-list flag ("a,b,c"), entries trimmed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard::tools {

// The entries of `text`, each trimmed of spaces. Throws ConfigError naming
// `flag` when an entry is empty.
[[nodiscard]] std::vector<std::string> comma_list(std::string_view flag, const std::string& text);

}  // namespace railyard::tools
