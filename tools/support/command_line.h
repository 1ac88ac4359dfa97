// A tool's command line parsed as launchers parse theirs: --help prints the
// usage and exits 0; a flag refused prints one line naming the tool and
// exits 2.
#pragma once

#include <optional>
#include <string_view>

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's own namespace
class App;
}  // namespace CLI

namespace railyard::tools {

// Parses argv into `app`. Returns the status to exit with when the tool is
// not to run (0 after --help, 2 after "<prefix><what was refused>" on
// stderr), nullopt when it is.
[[nodiscard]] std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv,
                                                    std::string_view prefix);

}  // namespace railyard::tools
