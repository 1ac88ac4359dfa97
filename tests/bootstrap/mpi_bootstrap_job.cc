// One rank of a job started by Open MPI's mpirun, bootstrapping over
// MPI_COMM_WORLD through MpiCollectives (run by ctest as
// `mpirun -np 3 ... comm_mpi_bootstrap_job`). Every failed check is printed
// and makes the exit status non-zero; mpirun returns the first non-zero one.
#include <mpi.h>

#include <fmt/format.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "blob_text.h"
#include "job_check.h"
#include "railyard/bootstrap/mpi_bootstrap.h"
#include "railyard/common/error.h"

namespace {

using railyard::bootstrap::Blob;
using railyard::testing::blob_text;
using railyard::testing::text_blob;
using namespace std::chrono_literals;

railyard::testing::JobCheck check;

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    throw railyard::Error(call, rc, fmt::format("{} failed with MPI error {}", call, rc));
  }
}

// What the MPI shim hands the bootstrap: MPI_COMM_WORLD's collectives.
class WorldCollectives final : public railyard::bootstrap::MpiCollectives {
 public:
  [[nodiscard]] int rank() const override {
    int rank = -1;
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    return rank;
  }
  [[nodiscard]] int size() const override {
    int size = 0;
    check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
    return size;
  }
  [[nodiscard]] std::vector<railyard::bootstrap::Blob> allgather(
      std::span<const std::byte> mine) override {
    const int ranks = size();
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(ranks));
    check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD),
              "MPI_Allgather");
    std::vector<int> offsets(lengths.size());
    std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
    std::vector<std::byte> all(static_cast<std::size_t>(offsets.back() + lengths.back()));
    check_mpi(MPI_Allgatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(),
                             offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Allgatherv");
    std::vector<railyard::bootstrap::Blob> out;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const auto* first = all.data() + offsets[i];
      out.emplace_back(first, first + lengths[i]);
    }
    return out;
  }
  void abort(int code) noexcept override { MPI_Abort(MPI_COMM_WORLD, code); }
};

int run() {
  const std::string mine(static_cast<std::size_t>(::getpid() % 7), 'x');  // lengths differ
  railyard::bootstrap::MpiBootstrap bootstrap(std::make_unique<WorldCollectives>(),
                                              text_blob(mine));
  const int rank = bootstrap.rank();
  const int size = bootstrap.size();
  check(size == 3, fmt::format("job size {}, expected 3", size));
  check(std::string(bootstrap.method()) == "mpi", "method");
  check(blob_text(bootstrap.descriptors()[static_cast<std::size_t>(rank)]) == mine,
        "own descriptor in place");
  const auto all =
      bootstrap.allgather(text_blob(std::string(static_cast<std::size_t>(rank), 'r')), 30s);
  for (int other = 0; other < size; ++other) {
    check(blob_text(all[static_cast<std::size_t>(other)]) ==
              std::string(static_cast<std::size_t>(other), 'r'),
          fmt::format("allgather entry {}", other));
  }
  const railyard::bootstrap::Blob got = bootstrap.broadcast(
      2, rank == 2 ? text_blob("from rank 2") : railyard::bootstrap::Blob{}, 30s);
  check(blob_text(got) == "from rank 2", "broadcast from rank 2: " + blob_text(got));
  try {
    (void)bootstrap.broadcast(size, {}, 1s);
    check(false, "a broadcast from a rank outside the job was accepted");
  } catch (const railyard::UsageError&) {
  }
  try {
    (void)bootstrap.store();
    check(false, "the mpi bootstrap offered a store");
  } catch (const railyard::UsageError& error) {
    check(std::string(error.what()).find("no key-value store") != std::string::npos, error.what());
  }
  bootstrap.barrier(30s);
  fmt::print(stderr, "rank {} of {}: {} failures\n", rank, size, check.failures());
  return check.exit_status();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    status = run();
  } catch (const std::exception& error) {
    fmt::print(stderr, "FAILED: {}\n", error.what());
  }
  MPI_Finalize();
  return status;
}
