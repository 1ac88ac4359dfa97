#include "railyard/torch/process_group.h"

namespace railyard::pytorch {

// Both adapters compile against every torch that has both classes, so the
// one torch 2.x uses is checked here with torch 1.13's headers.
template class RailyardProcessGroup<c10d::Backend>;
#if TORCH_VERSION_MAJOR < 2
template class RailyardProcessGroup<c10d::ProcessGroup>;
#endif

}  // namespace railyard::pytorch
