#include "command_line.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

namespace railyard::tools {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv,
                                      std::string_view prefix) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    fmt::print(stderr, "{}{}\n{}run with --help for the usage\n", prefix, error.what(), prefix);
    return 2;
  }
  return std::nullopt;
}

}  // namespace railyard::tools
