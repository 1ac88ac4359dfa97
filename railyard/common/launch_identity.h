// Who this process is in its job (rank, size, and its place among the ranks
// of its host), as the launcher that started it says through the
// environment: the one reader of every launcher's variables. The PMIx
// bootstrap completes what the environment leaves out (under Open MPI's
// mpirun, PMIX_RANK is set but the job size and local ranks are PMIx keys).
#pragma once

#include <optional>
#include <string>

namespace railyard {

struct LaunchIdentity {
  std::optional<unsigned> rank;
  std::optional<unsigned> size;
  std::optional<unsigned> local_rank;
  std::optional<unsigned> local_size;
  // The launcher the values came from: "railyard", "Open MPI",
  // "MPICH/Hydra", "Slurm" or "PMIx"; empty when no launcher set any.
  std::string launcher;
  // The variables the rank and the local rank came from
  // ("OMPI_COMM_WORLD_RANK"), for messages.
  std::string rank_variable;
  std::string local_rank_variable;

  [[nodiscard]] bool has_rank_and_size() const noexcept { return rank && size; }
};

// Reads, in this order of precedence:
//   RAILYARD_RANK, RAILYARD_SIZE, RAILYARD_LOCAL_RANK, RAILYARD_LOCAL_SIZE;
//   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE (Open MPI);
//   PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS (MPICH/Hydra; but
//     PMI_RANK and PMI_SIZE inside an srun step without Hydra's local ranks
//     are Slurm's, srun --mpi=pmi2);
//   SLURM_PROCID, SLURM_STEP_NUM_TASKS (or SLURM_NTASKS), SLURM_LOCALID and
//     SLURM_NTASKS_PER_NODE (or SLURM_TASKS_PER_NODE's entry for
//     SLURM_NODEID), inside an srun step only (SLURM_STEP_ID set) and only
//     when no MPI launcher's variables are set: a batch script's own
//     environment says SLURM_PROCID=0 of the whole allocation, and a launcher
//     started under Slurm inherits the Slurm values of its daemons;
//   PMIX_RANK (rank only).
// The first launcher found gives the identity; every other one considered
// must agree with it on every value both set. Throws ConfigError naming the
// variables and their values for a value that is not a number, a rank set
// without its size (or the reverse), a rank not below its size, or two
// launchers that disagree.
[[nodiscard]] LaunchIdentity launch_identity_from_environment();

}  // namespace railyard
