// Gather (and gatherv) straight into the root: every other rank sends its
// block once, and the root receives all of them at once, each into its
// place. One step; the root's link carries (p-1)/p of the result, which a
// tree would carry too. Any p.
#include <cstring>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask gather_linear(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const int rank = channel.rank();
  // A non-root rank's block is `count` elements (gather) or its own count
  // (gatherv: the send count it was given).
  if (rank != args.root) {
    std::vector<Transfer> give;
    give.push_back(channel.send(args.send, args.count * element, args.root));
    co_await Transfers{give};
    co_return;
  }
  const BlockLayout layout{args.counts, args.displs, args.count};
  auto* out = static_cast<std::byte*>(args.recv);
  if (!args.in_place && layout.count(rank) != 0) {
    std::memcpy(out + layout.offset(rank) * element, args.send, layout.count(rank) * element);
  }
  std::vector<Transfer> takes;
  std::vector<int> from;
  for (int other = 0; other < channel.size(); ++other) {
    if (other != rank) {
      takes.push_back(
          channel.recv(out + layout.offset(other) * element, layout.count(other) * element, other));
      from.push_back(other);
    }
  }
  co_await Transfers{takes};
  for (std::size_t i = 0; i < takes.size(); ++i) {
    channel.expect(takes[i], layout.count(from[i]) * element, from[i]);
  }
}

double gather_linear_cost(const CostQuery& query) {
  return fan_step_us(query, static_cast<double>(query.bytes) / query.ranks);
}

const Registration kGatherLinear{
    Algorithm{Collective::kGather, "linear",
              "every rank sends its block to the root, which receives them all at once",
              gather_linear, gather_linear_cost}};

const Registration kGathervLinear{
    Algorithm{Collective::kGatherv, "linear",
              "every rank sends its block to the root, which receives them all at once",
              gather_linear, gather_linear_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
