// One rank of a job started by Open MPI's mpirun, bootstrapping through
// PMIx as the automatic choice finds it (run by ctest as
// `mpirun -np 3 ... comm_pmix_bootstrap_job`). Every
// check failure is printed and makes the exit status non-zero; mpirun
// returns the first non-zero status.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "blob_text.h"
#include "job_check.h"
#include "railyard/bootstrap/make_bootstrap.h"
#include "railyard/bootstrap/pmix_bootstrap.h"
#include "railyard/common/error.h"

namespace {

using railyard::bootstrap::Blob;
using railyard::testing::blob_text;
using railyard::testing::text_blob;
using namespace std::chrono_literals;

railyard::testing::JobCheck check;

}  // namespace

int main() {
  try {
    railyard::bootstrap::BootstrapOptions options;
    options.timeout = 30s;
    const std::string mine = fmt::format("descriptor of pid {}", ::getpid());
    const auto chosen = railyard::bootstrap::make_bootstrap(
        text_blob(mine), options, railyard::launch_identity_from_environment());
    auto* bootstrap = dynamic_cast<railyard::bootstrap::PmixBootstrap*>(chosen.get());
    if (bootstrap == nullptr) {
      fmt::print(stderr, "FAILED: the automatic choice under mpirun was {}, not pmix\n",
                 chosen->method());
      return 1;
    }
    const int rank = bootstrap->rank();
    const int size = bootstrap->size();
    check(size == 3, fmt::format("job size {}, expected 3", size));
    check(bootstrap->local_size() == 3, fmt::format("local size {}", bootstrap->local_size()));
    check(bootstrap->local_rank() < 3, fmt::format("local rank {}", bootstrap->local_rank()));
    const char* launcher_rank =
        std::getenv("OMPI_COMM_WORLD_RANK");  // NOLINT(concurrency-mt-unsafe)
    check(launcher_rank != nullptr && std::string(launcher_rank) == std::to_string(rank),
          "PMIx rank matches OMPI_COMM_WORLD_RANK");
    check(bootstrap->descriptors().size() == static_cast<std::size_t>(size), "descriptor count");
    check(blob_text(bootstrap->descriptors()[static_cast<std::size_t>(rank)]) == mine,
          "own descriptor in place");
    for (int round = 0; round < 3; ++round) {
      const auto all = bootstrap->allgather(text_blob(std::to_string(rank * 10 + round)), 30s);
      for (int other = 0; other < size; ++other) {
        check(blob_text(all[static_cast<std::size_t>(other)]) == std::to_string(other * 10 + round),
              fmt::format("allgather round {} entry {}", round, other));
      }
    }
    const railyard::bootstrap::Blob got = bootstrap->broadcast(
        1, rank == 1 ? text_blob("from rank 1") : railyard::bootstrap::Blob{}, 30s);
    check(blob_text(got) == "from rank 1", "broadcast from rank 1: " + blob_text(got));
    if (rank == 2) {
      bootstrap->store().set("answer", text_blob("42"));
    }
    // Ranks 0 and 1 may ask before rank 2 set it: the lookup waits.
    check(blob_text(bootstrap->store().get("answer", 20s)) == "42", "store value");
    try {
      (void)bootstrap->store().get("never-set", 1s);
      check(false, "a key nobody set was found");
    } catch (const railyard::TimeoutError& error) {
      check(std::string(error.what()).find("never-set") != std::string::npos, error.what());
    }
    bootstrap->barrier(30s);
    fmt::print(stderr, "rank {} of {}: {} failures\n", rank, size, check.failures());
  } catch (const std::exception& error) {
    fmt::print(stderr, "FAILED: {}\n", error.what());
    return 1;
  }
  return check.exit_status();
}
