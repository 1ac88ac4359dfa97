#include "tool_main.h"

#include <cstdio>
#include <exception>

#include <fmt/format.h>

namespace railyard::tools {

int run_reporting_errors(std::string_view prefix, int (*run)(int, char**), int argc,
                         char** argv) noexcept {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    try {
      fmt::print(stderr, "{}{}\n", prefix, e.what());
    } catch (...) {
      (void)std::fputs("tool failed; its error could not be printed\n", stderr);
    }
    return 1;
  }
}

}  // namespace railyard::tools
