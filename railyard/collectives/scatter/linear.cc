// Scatter (and scatterv) straight from the root: it sends every other rank
// its block at once, and each of them receives one. One step. Any p.
#include <cstring>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/scatter/linear.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

CollectiveTask scatter_linear(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const int rank = channel.rank();
  if (rank != args.root) {
    // `count`: what this rank receives (scatterv: its own receive count).
    const std::size_t bytes = args.count * element;
    std::vector<Transfer> take;
    take.push_back(channel.recv(args.recv, bytes, args.root));
    co_await Transfers{take};
    channel.expect(take[0], bytes, args.root);
    co_return;
  }
  const BlockLayout layout{args.counts, args.displs, args.count};
  const auto* in = static_cast<const std::byte*>(args.send);
  if (!args.in_place && layout.count(rank) != 0) {
    std::memcpy(args.recv, in + layout.offset(rank) * element, layout.count(rank) * element);
  }
  std::vector<Transfer> gives;
  for (int other = 0; other < channel.size(); ++other) {
    if (other != rank) {
      gives.push_back(
          channel.send(in + layout.offset(other) * element, layout.count(other) * element, other));
    }
  }
  co_await Transfers{gives};
}

namespace {

double scatter_linear_cost(const CostQuery& query) {
  return fan_step_us(query, static_cast<double>(query.bytes) / query.ranks);
}

const Registration kScatterLinear{
    Algorithm{Collective::kScatter, "linear",
              "the root sends every rank its block at once, each rank receives one", scatter_linear,
              scatter_linear_cost}};

const Registration kScattervLinear{
    Algorithm{Collective::kScatterv, "linear",
              "the root sends every rank its block at once, each rank receives one", scatter_linear,
              scatter_linear_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
