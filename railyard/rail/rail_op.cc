#include "railyard/rail/rail_op.h"

namespace railyard::rail {

const char* to_string(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kSend:
      return "send";
    case OpKind::kRecv:
      return "recv";
    case OpKind::kTaggedSend:
      return "tagged send";
    case OpKind::kTaggedRecv:
      return "tagged recv";
    case OpKind::kWrite:
      return "RMA write";
    case OpKind::kRead:
      return "RMA read";
  }
  return "unknown";
}

}  // namespace railyard::rail
