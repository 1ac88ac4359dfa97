#include "railyard/bootstrap/make_bootstrap.h"

#include <fmt/format.h>

#include "railyard/bootstrap/pmix_bootstrap.h"
#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/bootstrap/single_bootstrap.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap {
namespace {

std::unique_ptr<Bootstrap> join_root(std::span<const std::byte> descriptor,
                                     const BootstrapOptions& options,
                                     const LaunchIdentity& identity, const char* why) {
  if (options.root.empty()) {
    throw ConfigError("RAILYARD_ROOT", "",
                      "expected host:port of rank 0 for the root bootstrap (railyard-run sets it)");
  }
  if (!identity.has_rank_and_size()) {
    throw ConfigError(
        "RAILYARD_RANK", "",
        "expected this process's rank and the job size for the root bootstrap: set "
        "RAILYARD_RANK and RAILYARD_SIZE, or start it with railyard-run, mpirun or srun");
  }
  log::info("bootstrap: root at {} as rank {} of {} (rank from {}; {})", options.root,
            *identity.rank, *identity.size, identity.rank_variable, why);
  return std::make_unique<RootBootstrap>(static_cast<int>(*identity.rank),
                                         static_cast<int>(*identity.size), descriptor, options);
}

std::unique_ptr<Bootstrap> join_pmix(std::span<const std::byte> descriptor,
                                     const BootstrapOptions& options,
                                     const LaunchIdentity& identity) {
  auto pmix = PmixBootstrap::connect(descriptor, options);
  if (!pmix) {
    return nullptr;
  }
  // A launcher's variable that disagrees with PMIx means two jobs' settings
  // are mixed up (say, a stale RAILYARD_RANK exported into mpirun's ranks).
  if (identity.rank && *identity.rank != static_cast<unsigned>(pmix->rank())) {
    throw ConfigError(identity.rank_variable, std::to_string(*identity.rank),
                      fmt::format("expected PMIx's rank for this process, {}", pmix->rank()));
  }
  if (identity.size && *identity.size != static_cast<unsigned>(pmix->size())) {
    throw ConfigError("job size from " + identity.launcher, std::to_string(*identity.size),
                      fmt::format("expected PMIx's job size, {}", pmix->size()));
  }
  log::info("bootstrap: PMIx as rank {} of {}", pmix->rank(), pmix->size());
  return pmix;
}

}  // namespace

std::unique_ptr<Bootstrap> make_bootstrap(std::span<const std::byte> descriptor,
                                          const BootstrapOptions& options,
                                          const LaunchIdentity& identity) {
  switch (options.method) {
    case BootstrapMethod::kRoot:
      return join_root(descriptor, options, identity, "RAILYARD_BOOTSTRAP=root");
    case BootstrapMethod::kPmix:
      if (auto pmix = join_pmix(descriptor, options, identity)) {
        return pmix;
      }
      throw ConfigError("RAILYARD_BOOTSTRAP", "pmix",
                        "no PMIx server answered: start the job with mpirun or srun --mpi=pmix, "
                        "or choose root or auto");
    case BootstrapMethod::kMpi:
      throw ConfigError("RAILYARD_BOOTSTRAP", "mpi",
                        "only the MPI shim (librailyard_mpi) bootstraps over MPI; choose auto, "
                        "pmix or root");
    case BootstrapMethod::kAuto:
      break;
  }
  // railyard-run's ranks may inherit an outer job's PMIx server (railyard-run
  // started inside an srun step): its own root is the job they belong to.
  if (identity.launcher == "railyard" && !options.root.empty()) {
    return join_root(descriptor, options, identity, "set by railyard-run or the user");
  }
  if (auto pmix = join_pmix(descriptor, options, identity)) {
    return pmix;
  }
  if (!options.root.empty()) {
    return join_root(descriptor, options, identity, "no PMIx server answered");
  }
  if (!identity.size || *identity.size == 1) {
    log::info("bootstrap: a job of one rank (no PMIx server, no RAILYARD_ROOT{})",
              identity.launcher.empty() ? ", no launcher variables" : "");
    return std::make_unique<SingleBootstrap>(descriptor);
  }
  throw ConfigError(
      "RAILYARD_ROOT", "",
      fmt::format("expected host:port of rank 0: {} says this is a job of {} ranks, and no PMIx "
                  "server answered (start it with railyard-run, mpirun or srun --mpi=pmix)",
                  identity.launcher, *identity.size));
}

}  // namespace railyard::bootstrap
