#include "railyard/transports/rail/wait_policy.h"

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"

namespace railyard {

WaitPolicy WaitPolicy::from_environment() {
  WaitPolicy policy;
  if (const auto text = env::get("RAILYARD_SPIN_US")) {
    policy.spin = std::chrono::microseconds(parse_uint("RAILYARD_SPIN_US", *text, 0, 1'000'000));
  }
  return policy;
}

}  // namespace railyard
