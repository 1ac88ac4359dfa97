#include "process_clock.h"

#include <unistd.h>
#include <ctime>

#include <fstream>
#include <sstream>
#include <string>

namespace railyard::bench {

std::optional<double> ms_since_process_start() {
  std::ifstream file("/proc/self/stat");
  std::string stat;
  if (!std::getline(file, stat)) {
    return std::nullopt;
  }
  // The command name (field 2) may hold spaces and parentheses: fields
  // resume after the last ')' with field 3; starttime is field 22.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) {
    return std::nullopt;
  }
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks)) {
    return std::nullopt;
  }
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  timespec now{};
  if (ticks_per_second <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
    return std::nullopt;
  }
  const double now_ms =
      static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
  const double start_ms =
      static_cast<double>(start_ticks) * 1e3 / static_cast<double>(ticks_per_second);
  return now_ms - start_ms;
}

}  // namespace railyard::bench
