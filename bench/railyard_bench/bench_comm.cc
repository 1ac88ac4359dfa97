#include "bench_comm.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace railyard::bench {

std::vector<std::string> gather_lines(BenchComm& comm, const std::string& line) {
  constexpr std::size_t kWidth = 240;
  std::array<char, kWidth> mine{};
  std::memcpy(mine.data(), line.data(), std::min(line.size(), kWidth));
  std::vector<char> all(kWidth * static_cast<std::size_t>(comm.size()));
  comm.allgather(mine.data(), all.data(), kWidth);
  std::vector<std::string> lines;
  if (comm.rank() == 0) {
    for (std::size_t rank = 0; rank < static_cast<std::size_t>(comm.size()); ++rank) {
      const char* start = all.data() + rank * kWidth;
      lines.emplace_back(start, std::find(start, start + kWidth, '\0'));
    }
  }
  return lines;
}

}  // namespace railyard::bench
