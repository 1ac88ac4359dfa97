#include "railyard/common/launch_identity.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "railyard/common/error.h"
#include "scoped_env.h"

namespace railyard {
namespace {

using testing::ScopedEnv;

// Every variable the identity reads, cleared for each test so the machine's
// own environment (a CI runner under Slurm) cannot leak in.
constexpr std::array kAllVariables{"RAILYARD_RANK",
                                   "RAILYARD_SIZE",
                                   "RAILYARD_LOCAL_RANK",
                                   "RAILYARD_LOCAL_SIZE",
                                   "OMPI_COMM_WORLD_RANK",
                                   "OMPI_COMM_WORLD_SIZE",
                                   "OMPI_COMM_WORLD_LOCAL_RANK",
                                   "OMPI_COMM_WORLD_LOCAL_SIZE",
                                   "PMI_RANK",
                                   "PMI_SIZE",
                                   "MPI_LOCALRANKID",
                                   "MPI_LOCALNRANKS",
                                   "SLURM_PROCID",
                                   "SLURM_NTASKS",
                                   "SLURM_STEP_NUM_TASKS",
                                   "SLURM_LOCALID",
                                   "SLURM_NTASKS_PER_NODE",
                                   "SLURM_TASKS_PER_NODE",
                                   "SLURM_NODEID",
                                   "SLURM_STEP_ID",
                                   "SLURM_STEPID",
                                   "PMIX_RANK"};

class LaunchIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kAllVariables) {
      cleared_.push_back(std::make_unique<ScopedEnv>(name, nullptr));
    }
  }
  void set(const char* name, const char* value) {
    cleared_.push_back(std::make_unique<ScopedEnv>(name, value));
  }
  // The ConfigError the identity throws, or a failure when it throws none.
  static ConfigError error() {
    try {
      (void)launch_identity_from_environment();
    } catch (const ConfigError& thrown) {
      return thrown;
    }
    ADD_FAILURE() << "no ConfigError";
    return {"", "", ""};
  }

 private:
  std::vector<std::unique_ptr<ScopedEnv>> cleared_;
};

TEST_F(LaunchIdentityTest, NothingSetMeansNoLauncher) {
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_FALSE(identity.rank);
  EXPECT_FALSE(identity.size);
  EXPECT_TRUE(identity.launcher.empty());
}

TEST_F(LaunchIdentityTest, ReadsRailyardsOwnVariables) {
  set("RAILYARD_RANK", "3");
  set("RAILYARD_SIZE", "8");
  set("RAILYARD_LOCAL_RANK", "1");
  set("RAILYARD_LOCAL_SIZE", "2");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.rank, 3U);
  EXPECT_EQ(identity.size, 8U);
  EXPECT_EQ(identity.local_rank, 1U);
  EXPECT_EQ(identity.local_size, 2U);
  EXPECT_EQ(identity.launcher, "railyard");
}

TEST_F(LaunchIdentityTest, ReadsOpenMpiAndTakesTheMatchingPmixRank) {
  set("OMPI_COMM_WORLD_RANK", "2");
  set("OMPI_COMM_WORLD_SIZE", "4");
  set("OMPI_COMM_WORLD_LOCAL_RANK", "0");
  set("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
  set("PMIX_RANK", "2");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "Open MPI");
  EXPECT_EQ(identity.rank, 2U);
  EXPECT_EQ(identity.size, 4U);
  EXPECT_EQ(identity.local_size, 2U);
}

TEST_F(LaunchIdentityTest, ReadsMpichHydra) {
  set("PMI_RANK", "5");
  set("PMI_SIZE", "6");
  set("MPI_LOCALRANKID", "1");
  set("MPI_LOCALNRANKS", "3");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "MPICH/Hydra");
  EXPECT_EQ(identity.rank, 5U);
  EXPECT_EQ(identity.local_rank, 1U);
  EXPECT_EQ(identity.local_size, 3U);
}

TEST_F(LaunchIdentityTest, ReadsSlurmInsideAStepWithTheNodesTaskCount) {
  set("SLURM_STEP_ID", "0");
  set("SLURM_PROCID", "4");
  set("SLURM_NTASKS", "7");
  set("SLURM_LOCALID", "1");
  set("SLURM_TASKS_PER_NODE", "3(x2),1");
  set("SLURM_NODEID", "1");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "Slurm");
  EXPECT_EQ(identity.rank, 4U);
  EXPECT_EQ(identity.size, 7U);
  EXPECT_EQ(identity.local_rank, 1U);
  EXPECT_EQ(identity.local_size, 3U);
}

TEST_F(LaunchIdentityTest, NamesSlurmForItsPmi2Variables) {
  // srun --mpi=pmi2: PMI_RANK and PMI_SIZE beside Slurm's own, no Hydra
  // local ranks.
  set("SLURM_STEP_ID", "0");
  set("SLURM_PROCID", "2");
  set("SLURM_NTASKS", "3");
  set("SLURM_LOCALID", "2");
  set("SLURM_TASKS_PER_NODE", "3");
  set("SLURM_NODEID", "0");
  set("PMI_RANK", "2");
  set("PMI_SIZE", "3");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "Slurm");
  EXPECT_EQ(identity.rank, 2U);
  EXPECT_EQ(identity.local_size, 3U);
  set("PMI_RANK", "1");
  EXPECT_EQ(error().input(), "PMI_RANK");  // must agree with SLURM_PROCID
}

TEST_F(LaunchIdentityTest, NamesHydraStartedInsideASlurmStep) {
  // Hydra's proxies run as Slurm tasks; its ranks inherit the step's
  // variables, and Hydra sets its local ranks.
  set("SLURM_STEP_ID", "0");
  set("SLURM_PROCID", "0");
  set("SLURM_NTASKS", "1");
  set("PMI_RANK", "5");
  set("PMI_SIZE", "6");
  set("MPI_LOCALRANKID", "1");
  set("MPI_LOCALNRANKS", "3");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "MPICH/Hydra");
  EXPECT_EQ(identity.rank, 5U);
}

TEST_F(LaunchIdentityTest, IgnoresABatchScriptsSlurmValuesOutsideAStep) {
  // sbatch's own environment: rank 0 of the whole allocation.
  set("SLURM_PROCID", "0");
  set("SLURM_NTASKS", "4");
  EXPECT_FALSE(launch_identity_from_environment().rank);
}

TEST_F(LaunchIdentityTest, IgnoresSlurmUnderAnMpiLauncherStartedInsideIt) {
  // mpirun's daemons run as Slurm tasks, one per node: their Slurm rank is
  // the node's, not the process's.
  set("SLURM_STEP_ID", "0");
  set("SLURM_PROCID", "1");
  set("SLURM_NTASKS", "2");
  set("OMPI_COMM_WORLD_RANK", "5");
  set("OMPI_COMM_WORLD_SIZE", "8");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "Open MPI");
  EXPECT_EQ(identity.rank, 5U);
}

TEST_F(LaunchIdentityTest, PmixAloneGivesTheRankOnly) {
  set("PMIX_RANK", "3");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "PMIx");
  EXPECT_EQ(identity.rank, 3U);
  EXPECT_FALSE(identity.size);
}

TEST_F(LaunchIdentityTest, ARankWithoutItsSizeIsAnErrorNamingBoth) {
  set("RAILYARD_RANK", "1");
  const ConfigError thrown = error();
  EXPECT_EQ(thrown.input(), "RAILYARD_RANK");
  EXPECT_NE(std::string(thrown.what()).find("RAILYARD_SIZE"), std::string::npos) << thrown.what();
}

TEST_F(LaunchIdentityTest, ASizeWithoutItsRankIsAnError) {
  set("OMPI_COMM_WORLD_SIZE", "4");
  EXPECT_EQ(error().input(), "OMPI_COMM_WORLD_SIZE");
}

TEST_F(LaunchIdentityTest, ALocalRankWithoutItsLocalSizeIsAnError) {
  set("MPI_LOCALRANKID", "0");
  EXPECT_EQ(error().input(), "MPI_LOCALRANKID");
}

TEST_F(LaunchIdentityTest, ARankNotBelowItsSizeIsAnError) {
  set("RAILYARD_RANK", "4");
  set("RAILYARD_SIZE", "4");
  const ConfigError thrown = error();
  EXPECT_EQ(thrown.input(), "RAILYARD_RANK");
  EXPECT_NE(thrown.expected().find("RAILYARD_SIZE=4"), std::string::npos) << thrown.what();
}

TEST_F(LaunchIdentityTest, ANonNumberIsAnError) {
  set("PMI_RANK", "two");
  set("PMI_SIZE", "4");
  const ConfigError thrown = error();
  EXPECT_EQ(thrown.input(), "PMI_RANK");
  EXPECT_EQ(thrown.value(), "two");
}

TEST_F(LaunchIdentityTest, TwoLaunchersThatDisagreeAreAnErrorNamingBoth) {
  set("RAILYARD_RANK", "1");
  set("RAILYARD_SIZE", "4");
  set("OMPI_COMM_WORLD_RANK", "2");
  set("OMPI_COMM_WORLD_SIZE", "4");
  const ConfigError thrown = error();
  EXPECT_EQ(thrown.input(), "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(thrown.value(), "2");
  EXPECT_NE(thrown.expected().find("RAILYARD_RANK=1"), std::string::npos) << thrown.what();
}

TEST_F(LaunchIdentityTest, APmixRankThatDisagreesIsAnError) {
  set("OMPI_COMM_WORLD_RANK", "2");
  set("OMPI_COMM_WORLD_SIZE", "4");
  set("PMIX_RANK", "0");
  EXPECT_EQ(error().input(), "PMIX_RANK");
}

TEST_F(LaunchIdentityTest, ALaterLauncherFillsWhatTheFirstLeavesOut) {
  set("RAILYARD_LOCAL_RANK", "1");
  set("RAILYARD_LOCAL_SIZE", "2");
  set("PMI_RANK", "3");
  set("PMI_SIZE", "4");
  const LaunchIdentity identity = launch_identity_from_environment();
  EXPECT_EQ(identity.launcher, "railyard");
  EXPECT_EQ(identity.rank, 3U);
  EXPECT_EQ(identity.rank_variable, "PMI_RANK");
  EXPECT_EQ(identity.local_rank, 1U);
}

}  // namespace
}  // namespace railyard
