#include "bench_comm.h"

#include <algorithm>
#include <cstdint>

namespace railyard::bench {

std::vector<std::string> gather_lines(BenchComm& comm, const std::string& line) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  // Lengths first, then every line padded to the longest.
  const std::uint64_t length = line.size();
  std::vector<std::uint64_t> lengths(ranks);
  comm.allgather(&length, lengths.data(), sizeof length);
  const std::size_t width =
      std::max<std::uint64_t>(1, *std::max_element(lengths.begin(), lengths.end()));
  std::vector<char> mine(width, '\0');
  std::copy(line.begin(), line.end(), mine.begin());
  std::vector<char> all(width * ranks);
  comm.allgather(mine.data(), all.data(), width);
  std::vector<std::string> lines;
  if (comm.rank() == 0) {
    for (std::size_t rank = 0; rank < ranks; ++rank) {
      lines.emplace_back(all.data() + rank * width, lengths[rank]);
    }
  }
  return lines;
}

}  // namespace railyard::bench
