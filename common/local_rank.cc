#include "railyard/common/local_rank.h"

#include <array>
#include <limits>

#include <fmt/format.h>

#include "railyard/common/env.h"
#include "railyard/common/error.h"
#include "railyard/common/parse.h"

namespace railyard {

LocalRank local_rank_from_environment() {
  struct Source {
    const char* rank;
    const char* size;
  };
  static constexpr std::array<Source, 4> kSources{{
      {"RAILYARD_LOCAL_RANK", "RAILYARD_LOCAL_SIZE"},
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
  }};
  constexpr std::uint64_t kMax = std::numeric_limits<unsigned>::max();
  for (const auto& source : kSources) {
    const auto rank_text = env::get(source.rank);
    if (!rank_text) {
      continue;
    }
    LocalRank out;
    out.source = source.rank;
    out.rank = static_cast<unsigned>(parse_uint(source.rank, *rank_text, 0, kMax));
    if (const auto size_text = env::get(source.size)) {
      out.size = static_cast<unsigned>(parse_uint(source.size, *size_text, 1, kMax));
    } else {
      out.size = out.rank + 1;
    }
    if (out.rank >= out.size) {
      throw ConfigError(source.rank, *rank_text,
                        fmt::format("expected a local rank below {}={}", source.size, out.size));
    }
    return out;
  }
  return {};
}

}  // namespace railyard
