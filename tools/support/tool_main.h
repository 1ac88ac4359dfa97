// The body of a tool's main(): runs it, and turns an exception that escapes
// into one line on stderr and an exit status: 2 for a refused input (a
// flag's value, std::invalid_argument; a variable or a flag railyard's
// parsers refuse, ConfigError), as a parse error exits, 1 for the others.
#pragma once

#include <string_view>

namespace railyard::tools {

// Returns run(argc, argv), or 2 or 1 after printing `prefix` and the
// exception's text on stderr.
int run_reporting_errors(std::string_view prefix, int (*run)(int, char**), int argc,
                         char** argv) noexcept;

}  // namespace railyard::tools
