#include "railyard/collectives/launch.h"

#include <fmt/format.h>

#include <array>
#include <atomic>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/selection.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::collectives {
namespace {

// Whether an algorithm's first use was logged.
std::atomic<bool>& logged(const Algorithm& algorithm) {
  static std::array<std::atomic<bool>, 64> flags{};
  const auto all = all_algorithms();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i] == &algorithm) {
      return flags.at(i);
    }
  }
  return flags.back();  // not registered (a test's own): logged with the last
}

}  // namespace

void check_buffer(const void* data, std::size_t bytes, const char* what, const char* which) {
  if (data == nullptr && bytes != 0) {
    throw UsageError(
        fmt::format("{}: the {} buffer is null, with {} bytes to hold", what, which, bytes));
  }
}

void check_buffers(const CollectiveArgs& args, std::size_t send_bytes, std::size_t recv_bytes,
                   const char* what) {
  if (!args.in_place) {
    check_buffer(args.send, send_bytes, what, "send");
  }
  check_buffer(args.recv, recv_bytes, what, "receive");
}

void check_root(const Team& team, int root, const char* what) {
  if (root < 0 || root >= team.size()) {
    throw UsageError(fmt::format("{}: root {} is not a rank of this communicator of {} ranks", what,
                                 root, team.size()));
  }
}

std::size_t check_layout(const Team& team, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, const char* what, const char* which) {
  const auto ranks = static_cast<std::size_t>(team.size());
  if (counts.size() != ranks || displs.size() != ranks) {
    throw UsageError(
        fmt::format("{}: the {} counts and displacements have {} and {} entries; "
                    "expected one per rank, {}",
                    what, which, counts.size(), displs.size(), ranks));
  }
  return detail::BlockLayout{counts, displs, 0}.extent(ranks);
}

const Algorithm& select(const Team& team, const Call& call, const CollectiveOptions& options) {
  const Algorithm& algorithm =
      options.algorithm.empty()
          ? team.algorithms().choose(call.collective, call.bytes, team.size(), team.host_shape())
          : AlgorithmTable::named(call.collective, options.algorithm);
  if (!logged(algorithm).exchange(true, std::memory_order_relaxed)) {
    log::info("{}: algorithm {} (first chosen for {} bytes on {} ranks{})",
              to_string(call.collective), algorithm.name, call.bytes, team.size(),
              options.algorithm.empty() ? "" : ", as the call asked");
  }
  return algorithm;
}

CollectiveTask start(const Team& team, const Call& call, const Algorithm& algorithm) {
  return algorithm.run(Channel(team, to_string(call.collective).data()), call.args);
}

}  // namespace railyard::collectives
