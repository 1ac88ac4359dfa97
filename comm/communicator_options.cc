#include "railyard/comm/communicator_options.h"

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"

namespace railyard::comm {

CommunicatorOptions CommunicatorOptions::from_environment() {
  CommunicatorOptions options;
  if (const auto text = env::get("RAILYARD_TIMEOUT")) {
    if (!iequals(trim(*text), "none")) {
      options.timeout = parse_duration("RAILYARD_TIMEOUT", *text, std::chrono::seconds(1),
                                       std::chrono::milliseconds(1), std::chrono::hours(24 * 7));
    }
  }
  if (const auto text = env::get("RAILYARD_PROGRESS_THREAD")) {
    options.progress_thread = parse_uint("RAILYARD_PROGRESS_THREAD", *text, 0, 1) == 1;
  }
  return options;
}

}  // namespace railyard::comm
