// barrier: the call, checked: every rank waits until all have called it.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call barrier_call(const Team& /*team*/) { return Call{Collective::kBarrier, CollectiveArgs{}, 0}; }

}  // namespace railyard::collectives
