#include "railyard/transports/rail/wait_policy.h"

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard {

WaitPolicy WaitPolicy::from_environment() {
  WaitPolicy policy;
  if (const auto text = env::get("RAILYARD_SPIN_US")) {
    policy.spin = std::chrono::microseconds(parse_uint("RAILYARD_SPIN_US", *text, 0, 1'000'000));
  }
  if (const auto text = env::get("RAILYARD_SPIN_YIELD")) {
    const std::string_view value = trim(*text);
    if (iequals(value, "on")) {
      policy.yield_while_spinning = true;
      policy.yield_given = true;
    } else if (iequals(value, "off")) {
      policy.yield_given = true;
    } else if (!iequals(value, "auto")) {
      throw ConfigError("RAILYARD_SPIN_YIELD", *text, "expected auto, on or off");
    }
  }
  return policy;
}

}  // namespace railyard
