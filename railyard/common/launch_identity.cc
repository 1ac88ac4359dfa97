#include "railyard/common/launch_identity.h"

#include <array>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/local_rank.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard {
namespace {

constexpr std::uint64_t kMaxRank = std::numeric_limits<int>::max();

// One value and the variable it was read from.
struct Setting {
  std::optional<unsigned> value;
  std::string variable;
  std::string text;

  [[nodiscard]] std::string shown() const { return fmt::format("{}={}", variable, text); }
};

struct Reading {
  const char* launcher = "";
  Setting rank;
  Setting size;
  Setting local_rank;
  Setting local_size;

  [[nodiscard]] bool any() const {
    return rank.value || size.value || local_rank.value || local_size.value;
  }
};

Setting read(const char* variable, std::uint64_t min) {
  Setting out;
  out.variable = variable;
  if (const auto text = env::get(variable)) {
    out.text = *text;
    out.value = static_cast<unsigned>(parse_uint(variable, *text, min, kMaxRank));
  }
  return out;
}

// The first of `variables` that is set (Slurm spells some values two ways).
Setting read_first(std::initializer_list<const char*> variables, std::uint64_t min) {
  for (const char* variable : variables) {
    if (env::get(variable)) {
      return read(variable, min);
    }
  }
  return Setting{{}, *variables.begin(), {}};
}

// Both of a pair or neither: a rank without its size is a half-configured
// launch, and guessing the other half makes ranks wait for peers that never
// come.
void require_pair(const Setting& index, const Setting& count, const char* what) {
  if (index.value && !count.value) {
    throw ConfigError(index.variable, index.text,
                      fmt::format("{} is set but {} is not: expected both ({})", index.variable,
                                  count.variable, what));
  }
  if (count.value && !index.value) {
    throw ConfigError(count.variable, count.text,
                      fmt::format("{} is set but {} is not: expected both ({})", count.variable,
                                  index.variable, what));
  }
  if (index.value && *index.value >= *count.value) {
    throw ConfigError(index.variable, index.text,
                      fmt::format("expected a value below {}", count.shown()));
  }
}

Reading checked(Reading reading) {
  require_pair(reading.rank, reading.size, "rank and size");
  require_pair(reading.local_rank, reading.local_size, "local rank and local size");
  return reading;
}

Reading read_launcher(const char* launcher, const char* rank, const char* size,
                      const char* local_rank, const char* local_size) {
  Reading out;
  out.launcher = launcher;
  out.rank = read(rank, 0);
  out.size = read(size, 1);
  out.local_rank = read(local_rank, 0);
  out.local_size = read(local_size, 1);
  return checked(std::move(out));
}

Reading read_slurm() {
  Reading out;
  out.launcher = "Slurm";
  out.rank = read("SLURM_PROCID", 0);
  out.size = read_first({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}, 1);
  out.local_rank = read("SLURM_LOCALID", 0);
  out.local_size = read("SLURM_NTASKS_PER_NODE", 1);
  if (out.local_rank.value && !out.local_size.value) {
    // Set whatever the allocation; SLURM_NTASKS_PER_NODE only with
    // --ntasks-per-node.
    if (const auto tasks = env::get("SLURM_TASKS_PER_NODE")) {
      const Setting node = read("SLURM_NODEID", 0);
      out.local_size.variable = "SLURM_TASKS_PER_NODE";
      out.local_size.text = *tasks;
      out.local_size.value = slurm_tasks_on_node(*tasks, node.value.value_or(0));
    }
  }
  return checked(std::move(out));
}

Reading read_pmix() {
  Reading out;
  out.launcher = "PMIx";
  out.rank = read("PMIX_RANK", 0);
  return out;
}

void agree(const Setting& chosen, const Setting& other, const char* what) {
  if (chosen.value && other.value && *chosen.value != *other.value) {
    throw ConfigError(
        other.variable, other.text,
        fmt::format("expected the same {} as {}: two launchers' variables disagree (unset the "
                    "ones left over from another launch)",
                    what, chosen.shown()));
  }
}

void fill(std::optional<unsigned>& out, const Setting& other) {
  if (!out) {
    out = other.value;
  }
}

}  // namespace

LaunchIdentity launch_identity_from_environment() {
  std::vector<Reading> readings;
  readings.push_back(read_launcher("railyard", "RAILYARD_RANK", "RAILYARD_SIZE",
                                   "RAILYARD_LOCAL_RANK", "RAILYARD_LOCAL_SIZE"));
  readings.push_back(read_launcher("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                                   "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"));
  const bool in_srun_step = env::get("SLURM_STEP_ID") || env::get("SLURM_STEPID");
  // srun --mpi=pmi2 sets PMI_RANK and PMI_SIZE as Hydra does, but not
  // Hydra's local ranks: inside an srun step without them, they are Slurm's.
  const bool hydra = !in_srun_step || env::get("MPI_LOCALRANKID") || env::get("MPI_LOCALNRANKS");
  const char* pmi_launcher = hydra ? "MPICH/Hydra" : "Slurm";
  Reading pmi =
      read_launcher(pmi_launcher, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS");
  const bool mpi_launcher = readings[1].any() || (hydra && pmi.any());
  std::optional<Reading> slurm_pmi;  // read after Slurm's own, and must agree with them
  if (hydra) {
    readings.push_back(std::move(pmi));
  } else {
    slurm_pmi = std::move(pmi);
  }
  if (in_srun_step && !mpi_launcher) {
    readings.push_back(read_slurm());
    if (slurm_pmi) {
      readings.push_back(std::move(*slurm_pmi));
    }
  } else if (env::get("SLURM_PROCID")) {
    log::debug("launch identity: Slurm's variables ignored ({})",
               mpi_launcher ? "an MPI launcher's variables are set"
                            : "not inside an srun step: SLURM_STEP_ID is unset");
  }
  readings.push_back(read_pmix());

  LaunchIdentity identity;
  const Reading* chosen = nullptr;
  for (const Reading& reading : readings) {
    if (!reading.any()) {
      continue;
    }
    if (chosen == nullptr) {
      chosen = &reading;
      continue;
    }
    agree(chosen->rank, reading.rank, "rank");
    agree(chosen->size, reading.size, "size");
    agree(chosen->local_rank, reading.local_rank, "local rank");
    agree(chosen->local_size, reading.local_size, "local size");
  }
  if (chosen == nullptr) {
    return identity;
  }
  identity.launcher = chosen->launcher;
  identity.rank_variable = chosen->rank.variable;
  identity.local_rank_variable = chosen->local_rank.variable;
  identity.rank = chosen->rank.value;
  identity.size = chosen->size.value;
  identity.local_rank = chosen->local_rank.value;
  identity.local_size = chosen->local_size.value;
  // A later launcher may know what the first leaves out (PMIX_RANK next to
  // RAILYARD_LOCAL_RANK); they agreed wherever both spoke.
  for (const Reading& reading : readings) {
    if (&reading == chosen || !reading.any()) {
      continue;
    }
    if (!identity.rank && reading.rank.value) {
      identity.rank_variable = reading.rank.variable;
    }
    if (!identity.local_rank && reading.local_rank.value) {
      identity.local_rank_variable = reading.local_rank.variable;
    }
    fill(identity.rank, reading.rank);
    fill(identity.size, reading.size);
    fill(identity.local_rank, reading.local_rank);
    fill(identity.local_size, reading.local_size);
  }
  if (identity.rank && identity.size && *identity.rank >= *identity.size) {
    throw ConfigError(identity.rank_variable, std::to_string(*identity.rank),
                      fmt::format("expected a rank below the job size {}", *identity.size));
  }
  if (identity.local_size && identity.size && *identity.local_size > *identity.size) {
    throw ConfigError("local size", std::to_string(*identity.local_size),
                      fmt::format("expected at most the job size {}", *identity.size));
  }
  return identity;
}

}  // namespace railyard
