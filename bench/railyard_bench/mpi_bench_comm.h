// railyard-bench over MPI's own collectives (railyard-bench-mpi): the
// baseline of a comparison, measured and checked by the same code as
// railyard. The communicator is a duplicate of MPI_COMM_WORLD, freed with
// this object; MPI itself is initialised and finalised by MpiSession.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "bench_comm.h"

namespace railyard::bench {

// MPI_Init on construction, MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  MpiSession(MpiSession&&) = delete;
  MpiSession& operator=(MpiSession&&) = delete;
};

class MpiBenchComm final : public BenchComm {
 public:
  MpiBenchComm();
  ~MpiBenchComm() override;
  MpiBenchComm(const MpiBenchComm&) = delete;
  MpiBenchComm& operator=(const MpiBenchComm&) = delete;
  MpiBenchComm(MpiBenchComm&&) = delete;
  MpiBenchComm& operator=(MpiBenchComm&&) = delete;

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] int local_rank() const override { return local_rank_; }
  [[nodiscard]] std::string library() const override;
  [[nodiscard]] std::string paths() const override;
  [[nodiscard]] std::vector<RailBytes> rail_bytes() const override { return {}; }

  void run(const Call& call) override;
  void barrier() override;
  void allgather(const void* mine, void* all, std::size_t bytes) override;
  [[nodiscard]] double sum(double value) override;
  [[nodiscard]] double max(double value) override;
  [[nodiscard]] std::uint64_t sum(std::uint64_t value) override;

 private:
  // The v-forms' counts and displacements: every rank's `count`, back to back.
  void equal_blocks(int count);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  int local_rank_ = 0;
  std::vector<int> counts_;
  std::vector<int> displs_;
};

// Throws std::invalid_argument for the types MPI 3.1 has no name for
// (half, bfloat16).
void check_mpi_type(collectives::DataType type);

}  // namespace railyard::bench
