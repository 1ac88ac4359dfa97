// The settings every rank of a job must share, because they change the
// wire protocol or which algorithm a collective runs: each rank's values go
// out on its rank card, and a world whose ranks disagree is refused at once
// on every rank, naming the variable, the values and the ranks holding
// each, instead of hanging in its first collective.
#pragma once

#include <string>
#include <vector>

#include "railyard/comm/communicator_options.h"

namespace railyard::comm::detail {

struct JobSetting {
  std::string name;   // the variable that sets it
  std::string value;  // as parsed, so that equal settings spelt apart agree
};

// This rank's values: the communicator's options (with the caller's
// settings last), and the multi-rail endpoint's read from the environment
// as it will read them.
[[nodiscard]] std::vector<JobSetting> job_settings(const CommunicatorOptions& options);

// Throws ConfigError naming the first setting whose values differ between
// the ranks (`by_rank[r]` are rank r's settings), from the point of view of
// rank `rank`: its value, and every value with the ranks that hold it.
void check_job_settings_agree(const std::vector<std::vector<JobSetting>>& by_rank, int rank);

}  // namespace railyard::comm::detail
