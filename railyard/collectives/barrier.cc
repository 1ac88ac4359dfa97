// barrier and ibarrier: every rank waits until all have called it.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request ibarrier(const Communicator& comm, const CollectiveOptions& options) {
  return detail::launch(comm, Collective::kBarrier, CollectiveArgs{}, 0, options);
}

void barrier(const Communicator& comm, const CollectiveOptions& options) {
  ibarrier(comm, options).wait();
}

}  // namespace railyard::comm
