#include "railyard/collectives/detail/launch.h"

#include <fmt/format.h>

#include <array>
#include <atomic>

#include "railyard/collectives/detail/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/common/error.h"
#include "railyard/common/detail/log.h"

namespace railyard::comm::detail {
namespace {

// Whether an algorithm's first use was logged: each choice is logged once
// a process, at info level, as NCCL logs its own.
std::atomic<bool>& logged(const Algorithm& algorithm) {
  static std::array<std::atomic<bool>, 64> flags{};
  const auto index = static_cast<std::size_t>(&algorithm - all_algorithms().data());
  return flags.at(index);
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

void check_root(const Communicator& comm, int root, const char* what) {
  if (root < 0 || root >= comm.size()) {
    throw UsageError(fmt::format("{}: root {} is not a rank of this communicator of {} ranks", what,
                                 root, comm.size()));
  }
}

std::size_t check_layout(const Communicator& comm, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, const char* what, const char* which) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  if (counts.size() != ranks || displs.size() != ranks) {
    throw UsageError(
        fmt::format("{}: the {} counts and displacements have {} and {} entries; "
                    "expected one per rank, {}",
                    what, which, counts.size(), displs.size(), ranks));
  }
  return BlockLayout{counts, displs, 0}.extent(ranks);
}

Request launch(const Communicator& comm, Collective collective, const CollectiveArgs& args,
               std::size_t bytes, const CollectiveOptions& options) {
  const Algorithm& algorithm =
      options.algorithm.empty()
          ? comm.algorithm_table().choose(collective, bytes, comm.size(),
                                          HostShape{comm.host_count(), comm.ranks_per_host()})
          : AlgorithmTable::named(collective, options.algorithm);
  if (!logged(algorithm).exchange(true, std::memory_order_relaxed)) {
    log::info("{}: algorithm {} (first chosen for {} bytes on {} ranks{})", to_string(collective),
              algorithm.name, bytes, comm.size(),
              options.algorithm.empty() ? "" : ", as the call asked");
  }
  // The names are string literals, so the view's data ends in a zero.
  const char* name = to_string(collective).data();
  return Channel::start(comm, name, algorithm.run(Channel(comm, name), args));
}

}  // namespace railyard::comm::detail
