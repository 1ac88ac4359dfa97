// Barrier by dissemination (Hensgen, Finkel, Manber 1988): in round k each
// rank signals the rank 2^k after it and waits for the one 2^k before it;
// after ceil(log2 p) rounds every rank has heard, through some chain, from
// every other, so none leaves before all have arrived. Any p.
#include <array>

#include "railyard/collectives/detail/algorithms.h"

namespace railyard::comm::detail {

CollectiveTask barrier_dissemination(Channel channel, CollectiveArgs /*args*/) {
  const int size = channel.size();
  const int rank = channel.rank();
  for (int distance = 1; distance < size; distance *= 2) {
    std::array<Request, 2> round{channel.recv(nullptr, 0, (rank - distance + size) % size),
                                 channel.send(nullptr, 0, (rank + distance) % size)};
    co_await Transfers{round};
  }
}

}  // namespace railyard::comm::detail
