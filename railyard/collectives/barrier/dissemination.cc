// Barrier by dissemination (Hensgen, Finkel, Manber 1988): in round k each
// rank signals the rank 2^k after it and waits for the one 2^k before it;
// after ceil(log2 p) rounds every rank has heard, through some chain, from
// every other, so none leaves before all have arrived. Any p.
#include <array>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask barrier_dissemination(Channel channel, CollectiveArgs /*args*/) {
  const int size = channel.size();
  const int rank = channel.rank();
  for (int distance = 1; distance < size; distance *= 2) {
    std::array<Transfer, 2> round{channel.recv(nullptr, 0, (rank - distance + size) % size),
                                  channel.send(nullptr, 0, (rank + distance) % size)};
    co_await Transfers{round};
  }
}

// ceil(log2 p) rounds of a signal at distance 1, 2, 4, ...
double barrier_dissemination_cost(const CostQuery& query) {
  double total = 0.0;
  for (int distance = 1; distance < query.ranks; distance *= 2) {
    total += shift_step_us(query, 0.0, distance);
  }
  return total;
}

const Registration kBarrierDissemination{
    Algorithm{Collective::kBarrier, "dissemination",
              "ceil(log2 p) rounds; in round k each rank signals the rank 2^k after it",
              barrier_dissemination, barrier_dissemination_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
