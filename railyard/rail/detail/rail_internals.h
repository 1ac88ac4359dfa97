// What the files of a Rail share: the fabric and domain it keeps alive, how
// libfabric's error numbers map to a Status, and how completions are read.
#pragma once

#include <cstddef>

#include "railyard/common/status.h"
#include "railyard/fabric/fabric.h"
#include "railyard/rail/rail.h"
#include "railyard/rail/rail_op.h"

namespace railyard::rail {

// The fabric and domain outlive the Rail while registrations still use them.
struct Rail::Resources {
  explicit Resources(fi_info& info) : fabric(info), domain(fabric, info) {}
  fabric::Fabric fabric;
  fabric::Domain domain;
};

}  // namespace railyard::rail

namespace railyard::rail::detail {

// Completions read per fi_cq_read, and the most batches one progress()
// reads, so that a busy rail cannot starve its neighbours.
inline constexpr std::size_t kCompletionBatch = 32;
inline constexpr int kMaxBatchesPerProgress = 8;

// Whether an operation of `kind` receives (its completion's length is the
// message's, not the posted one).
[[nodiscard]] inline bool is_receive(OpKind kind) noexcept {
  return kind == OpKind::kRecv || kind == OpKind::kTaggedRecv;
}

// The Status code of a libfabric error number (positive FI_E*).
[[nodiscard]] StatusCode code_for(int fi_errno) noexcept;

}  // namespace railyard::rail::detail
