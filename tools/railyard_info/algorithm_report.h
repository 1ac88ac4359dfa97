// railyard-info --algorithms: every collective algorithm with its
// description, and the overrides RAILYARD_ALGO sets.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace railyard::info {

// Throws ConfigError when RAILYARD_ALGO is invalid.
[[nodiscard]] nlohmann::json algorithm_report();
[[nodiscard]] std::string render_algorithms(const nlohmann::json& report);

}  // namespace railyard::info
