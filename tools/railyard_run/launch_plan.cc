#include "launch_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace railyard::run {

const std::vector<std::string>& foreign_identity_variables() {
  static const std::vector<std::string> names = {
      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
      "OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
      "PMIX_RANK", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_STEP_ID", "SLURM_STEPID",
      // Our own: replaced by this job's values below.
      "RAILYARD_RANK", "RAILYARD_SIZE", "RAILYARD_LOCAL_RANK", "RAILYARD_LOCAL_SIZE",
      "RAILYARD_ROOT", "RAILYARD_JOB_KEY"};
  return names;
}

namespace {

bool is_foreign(const std::string& entry) {
  const std::string_view name = std::string_view{entry}.substr(0, entry.find('='));
  const auto& names = foreign_identity_variables();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<RankLaunch> plan_ranks(const LaunchOptions& options,
                                   const std::vector<std::string>& inherited,
                                   const std::string& root, const std::string& job_key,
                                   const std::vector<topology::RankPlacement>& placements) {
  std::vector<std::string> common;
  std::copy_if(inherited.begin(), inherited.end(), std::back_inserter(common),
               [](const std::string& entry) { return !is_foreign(entry); });
  common.push_back(fmt::format("RAILYARD_SIZE={}", options.ranks));
  common.push_back(fmt::format("RAILYARD_LOCAL_SIZE={}", options.ranks));
  common.push_back("RAILYARD_ROOT=" + root);
  common.push_back("RAILYARD_JOB_KEY=" + job_key);
  // Debian's libfabric links PSM's libinfinipath, which installs a signal
  // handler when it is loaded that writes `<program>.80s-<pid>,<host>.btr`
  // into the working directory whenever the process dies of a fatal signal,
  // whether or not PSM is used. railyard-run reports a rank's signal itself,
  // and the variable is read only at load, so it has to come from here.
  // A value the user set is kept.
  if (std::none_of(common.begin(), common.end(), [](const std::string& entry) {
        return entry.starts_with("IPATH_NO_BACKTRACE=");
      })) {
    common.emplace_back("IPATH_NO_BACKTRACE=1");
  }
  if (options.rails) {
    std::erase_if(common,
                  [](const std::string& entry) { return entry.starts_with("RAILYARD_RAILS="); });
    common.push_back("RAILYARD_RAILS=" + *options.rails);
  }
  std::vector<RankLaunch> ranks;
  for (unsigned rank = 0; rank < options.ranks; ++rank) {
    RankLaunch launch;
    launch.rank = rank;
    launch.environment = common;
    launch.environment.push_back(fmt::format("RAILYARD_RANK={}", rank));
    launch.environment.push_back(fmt::format("RAILYARD_LOCAL_RANK={}", rank));
    if (rank < placements.size()) {
      launch.cpus = placements[rank].cpus;
    }
    ranks.push_back(std::move(launch));
  }
  return ranks;
}

}  // namespace railyard::run
