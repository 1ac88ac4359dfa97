#include "railyard/rail/wait_policy.h"

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::rail {

WaitPolicy WaitPolicy::from_environment() {
  WaitPolicy policy;
  if (const auto text = env::get("RAILYARD_SPIN_US")) {
    policy.spin = std::chrono::microseconds(parse_uint("RAILYARD_SPIN_US", *text, 0, 1'000'000));
    policy.spin_given = true;
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

void WaitPolicy::fit_to_host(bool oversubscribed) {
  if (!yield_given) {
    yield_while_spinning = oversubscribed;
  }
  // Where ranks outnumber cores, a spinning rank takes core time from the
  // rank (or the kernel's network processing) it waits for, even when it
  // yields between polls (docs/benchmarks.md, "Tuning choices").
  if (yield_while_spinning && !spin_given) {
    spin = std::chrono::microseconds{0};
  }
}

}  // namespace railyard::rail
