#include "comma_list.h"

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::tools {

std::vector<std::string> comma_list(std::string_view flag, const std::string& text) {
  std::vector<std::string> out;
  for (const auto piece : split(text, ',')) {
    if (trim(piece).empty()) {
      throw ConfigError(std::string(flag), text, "expected a comma list without empty entries");
    }
    out.emplace_back(trim(piece));
  }
  return out;
}

}  // namespace railyard::tools
