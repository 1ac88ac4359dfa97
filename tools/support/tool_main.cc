#include "tool_main.h"

#include <cstdio>
#include <exception>
#include <stdexcept>

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard::tools {

int run_reporting_errors(std::string_view prefix, int (*run)(int, char**), int argc,
                         char** argv) noexcept {
  const auto report = [prefix](const std::exception& e) noexcept {
    try {
      fmt::print(stderr, "{}{}\n", prefix, e.what());
    } catch (...) {
      (void)std::fputs("tool failed; its error could not be printed\n", stderr);
    }
  };
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    report(e);
    return 2;
  } catch (const ConfigError& e) {
    report(e);
    return 2;
  } catch (const std::exception& e) {
    report(e);
    return 1;
  }
}

}  // namespace railyard::tools
