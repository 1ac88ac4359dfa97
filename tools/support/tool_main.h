// The body of a tool's main(): runs it, and turns an exception that escapes
// into one line on stderr and exit status 1.
#pragma once

#include <string_view>

namespace railyard::tools {

// Returns run(argc, argv), or 1 after printing `prefix` and the exception's
// text on stderr.
int run_reporting_errors(std::string_view prefix, int (*run)(int, char**), int argc,
                         char** argv) noexcept;

}  // namespace railyard::tools
