// Chooses how this process bootstraps (RAILYARD_BOOTSTRAP, default auto)
// and joins its job. docs/environment.md, "Job identity and bootstrap".
#pragma once

#include <memory>
#include <span>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/common/launch_identity.h"

namespace railyard::bootstrap {

// Joins the job with `descriptor`, by options.method:
// - auto: the root when railyard-run started this process (RAILYARD_RANK and
//   RAILYARD_ROOT set); else PMIx when a PMIx server answers; else the root
//   when RAILYARD_ROOT is set; else, when no launcher names a job of more
//   than one rank, a job of one rank. Logs the choice and why at info level.
// - pmix, root: that method or a ConfigError saying why it cannot run.
// - mpi: a ConfigError; only the MPI shim bootstraps over MPI, through
//   MpiBootstrap.
// Throws ConfigError naming the variable that is missing or contradicts
// the launcher, and what the chosen method throws.
[[nodiscard]] std::unique_ptr<Bootstrap> make_bootstrap(std::span<const std::byte> descriptor,
                                                        const BootstrapOptions& options,
                                                        const LaunchIdentity& identity);

}  // namespace railyard::bootstrap
