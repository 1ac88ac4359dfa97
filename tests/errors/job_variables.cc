// Bad values of the variables a job reads: the Communicator, the bootstrap,
// the launcher's identity, the MPI shim and the log.
#include <string>
#include <vector>

#include "bad_input.h"
#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/make_bootstrap.h"
#include "railyard/comm/communicator_options.h"
#include "railyard/comm/host_identity.h"
#include "railyard/common/detail/local_rank.h"
#include "railyard/common/launch_identity.h"
#include "railyard/mpi_shim/detail/shim_options.h"

namespace railyard::testing {
namespace {

void read_communicator() { (void)comm::CommunicatorOptions::from_environment(); }
void read_bootstrap() { (void)bootstrap::BootstrapOptions::from_environment(); }
void make_bootstrap() {
  (void)bootstrap::make_bootstrap({}, bootstrap::BootstrapOptions::from_environment(),
                                  launch_identity_from_environment());
}
void read_host() { (void)comm::host_identity(); }
void read_launch() { (void)launch_identity_from_environment(); }
void read_local_rank() { (void)local_rank_from_environment(); }
void read_shim() { (void)mpi_shim::ShimOptions::from_environment(); }

}  // namespace

std::vector<BadInput> job_variables() {
  constexpr const char* kCommunicator = "Environment: the Communicator and collectives";
  constexpr const char* kBootstrap = "Environment: the bootstrap and the launcher";
  constexpr const char* kShim = "Environment: the MPI shim and the log";
  const std::string long_host(300, 'h');
  const std::string long_key(300, 'k');
  std::vector<BadInput> inputs{
      variable(kCommunicator, "RAILYARD_TIMEOUT", "forever", "expected none or a duration",
               read_communicator),
      variable(kCommunicator, "RAILYARD_TIMEOUT", "8d", "from 1 ms to 168 h", read_communicator),
      variable(kCommunicator, "RAILYARD_PROGRESS_THREAD", "yes", "expected an integer from 0 to 1",
               read_communicator),
      variable(kCommunicator, "RAILYARD_SHM", "maybe", "expected auto, on or off",
               read_communicator),
      variable(kCommunicator, "RAILYARD_SHM_PREFAULT", "1mbyte", "expected a byte count",
               read_communicator),
      variable(kCommunicator, "RAILYARD_HOST_SEGMENT", "auto", "expected on or off",
               read_communicator),
      variable(kCommunicator, "RAILYARD_ALGO", "allreduce:0-8k:quantum",
               "names no allreduce algorithm 'quantum'; there are rabenseifner, recursive_doubling",
               read_communicator),
      variable(kCommunicator, "RAILYARD_ALGO", "scan:0-inf:ring",
               "names no collective 'scan'; there are barrier", read_communicator),
      variable(kCommunicator, "RAILYARD_ALGO", "allreduce:8k-1k:ring", "with FROM below TO",
               read_communicator),
      variable(kCommunicator, "RAILYARD_ALGO", "allreduce:ring",
               "is not COLLECTIVE:FROM-TO:ALGORITHM", read_communicator),
      variable(kCommunicator, "RAILYARD_ALGO", "allreduce:0-lots:ring", "expected FROM-TO in bytes",
               read_communicator),
      variable(kCommunicator, "RAILYARD_HOST_ID", "", "expected 1 to 255 bytes", read_host),
      shown_as(variable(kCommunicator, "RAILYARD_HOST_ID", long_host, "expected 1 to 255 bytes",
                        read_host),
               "300 bytes of 'h'", std::string(32, 'h')),
      variable(kBootstrap, "RAILYARD_BOOTSTRAP", "carrier-pigeon",
               "expected auto, pmix, root or mpi", read_bootstrap),
      variable(kBootstrap, "RAILYARD_BOOTSTRAP", "mpi",
               "only the MPI shim (librailyard_mpi) bootstraps over MPI; choose auto, pmix or root",
               make_bootstrap),
      variable(kBootstrap, "RAILYARD_BOOTSTRAP", "pmix",
               "no PMIx server answered: start the job with mpirun or srun --mpi=pmix",
               make_bootstrap),
      variable(kBootstrap, "RAILYARD_ROOT", "no-port-here",
               "no port: expected [tcp:// or verbs://]host:port", read_bootstrap),
      variable(kBootstrap, "RAILYARD_ROOT", "127.0.0.1:99999", "is not a port: expected",
               read_bootstrap),
      variable(kBootstrap, "RAILYARD_ROOT", "", "expected [tcp:// or verbs://]host:port",
               read_bootstrap),
      BadInput{.kind = kBootstrap,
               .input = "RAILYARD_ROOT",
               .value = "unset, with RAILYARD_BOOTSTRAP=root",
               .expected = "expected host:port of rank 0",
               .refuse =
                   [] {
                     return refusal_with(
                         {{"RAILYARD_BOOTSTRAP", "root"}, {"RAILYARD_ROOT", std::nullopt}},
                         make_bootstrap);
                   },
               .input_in_message = {},
               .value_in_message = "RAILYARD_ROOT=''",
               .secret = {}},
      // The job key is a secret: refused without being printed.
      secret(variable(kBootstrap, "RAILYARD_JOB_KEY", long_key, "expected at most 256 bytes",
                      read_bootstrap),
             "300 bytes", "<300 bytes>"),
      variable(kBootstrap, "RAILYARD_BOOTSTRAP_TIMEOUT", "soon",
               "expected a duration from 1 ms to 24 h", read_bootstrap),
      variable(kBootstrap, "RAILYARD_BOOTSTRAP_TIMEOUT", "25h",
               "expected a duration from 1 ms to 24 h", read_bootstrap),
      variable(kBootstrap, "RAILYARD_RANK", "first", "expected an integer from 0 to", read_launch,
               {{"RAILYARD_SIZE", "4"}}),
      variable(kBootstrap, "RAILYARD_RANK", "4", "expected a value below RAILYARD_SIZE=4",
               read_launch, {{"RAILYARD_SIZE", "4"}}),
      variable(kBootstrap, "RAILYARD_RANK", "1", "expected both (rank and size)", read_launch),
      variable(kBootstrap, "RAILYARD_SIZE", "0", "expected an integer from 1 to", read_launch,
               {{"RAILYARD_RANK", "0"}}),
      variable(kBootstrap, "OMPI_COMM_WORLD_RANK", "2", "expected the same rank as RAILYARD_RANK=1",
               read_launch,
               {{"RAILYARD_RANK", "1"}, {"RAILYARD_SIZE", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}}),
      variable(kBootstrap, "RAILYARD_LOCAL_RANK", "2",
               "expected a value below RAILYARD_LOCAL_SIZE=2", read_local_rank,
               {{"RAILYARD_LOCAL_SIZE", "2"}}),
      variable(kBootstrap, "SLURM_TASKS_PER_NODE", "2(x", "expected Slurm's tasks-per-node list",
               read_local_rank,
               {{"SLURM_STEP_ID", "0"}, {"SLURM_LOCALID", "0"}, {"SLURM_NODEID", "0"}}),
      variable(kShim, "RAILYARD_MPI_COLLECTIVES", "allreduce,scan",
               "expected all, none, or a comma list of allreduce", read_shim),
      variable(kShim, "RAILYARD_MPI_COLLECTIVES", "", "expected all, none, or a comma list",
               read_shim),
      variable(kShim, "RAILYARD_MPI_MIN_BYTES", "-1", "expected a byte count", read_shim),
      variable(kShim, "RAILYARD_MPI_MIN_BYTES", "bcast=1m,scan=64k",
               "'scan=64k' names no collective the shim carries", read_shim),
      variable(kShim, "RAILYARD_MPI_MIN_BYTES", "64k,1m", "gives two sizes for every collective",
               read_shim),
      variable(kShim, "RAILYARD_MPI_MIN_BYTES", "bcast=1m,bcast=2m", "names bcast twice",
               read_shim),
      variable(kShim, "RAILYARD_MPI_VERBOSE", "3", "expected an integer from 0 to 2", read_shim),
  };
  // The log's level is refused where the library starts, once, with no
  // warning before it that another level was taken instead.
  inputs.push_back(BadInput{.kind = kShim,
                            .input = "RAILYARD_LOG",
                            .value = "loud",
                            .expected = "expected one of error, warn, info, debug, trace or off",
                            .refuse =
                                [] {
                                  std::string refusal = tool_refusal(
                                      RAILYARD_BENCH_PATH, {"barrier", "-n", "1", "-w", "0"},
                                      {{"RAILYARD_LOG", "loud"}});
                                  return refusal.find("logging at") == std::string::npos
                                             ? refusal
                                             : "it warned of another level before refusing";
                                },
                            .input_in_message = {},
                            .value_in_message = {},
                            .secret = {}});
  return inputs;
}

}  // namespace railyard::testing
