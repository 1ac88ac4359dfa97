// railyard-bench over railyard's Communicator and collectives.
#pragma once

#include <string>
#include <vector>

#include "bench_comm.h"
#include "railyard/comm/collectives.h"
#include "railyard/comm/communicator.h"

namespace railyard::bench {

class RailyardBenchComm final : public BenchComm {
 public:
  // Every collective call names `algorithm` ("" for the table's choice).
  RailyardBenchComm(comm::Communicator communicator, std::string algorithm);

  [[nodiscard]] int rank() const override { return comm_.rank(); }
  [[nodiscard]] int size() const override { return comm_.size(); }
  [[nodiscard]] int local_rank() const override { return comm_.local_rank(); }
  [[nodiscard]] std::string library() const override;
  [[nodiscard]] std::string paths() const override;
  [[nodiscard]] std::vector<RailBytes> rail_bytes() const override;

  void run(const Call& call) override;
  void barrier() override;
  void allgather(const void* mine, void* all, std::size_t bytes) override;
  [[nodiscard]] double sum(double value) override;
  [[nodiscard]] double max(double value) override;
  [[nodiscard]] std::uint64_t sum(std::uint64_t value) override;

 private:
  // The v-forms' counts and displacements: every rank's `count`, back to back.
  void equal_blocks(std::size_t count);

  comm::Communicator comm_;
  comm::CollectiveOptions options_;
  std::vector<std::size_t> counts_;
  std::vector<std::size_t> displs_;
};

}  // namespace railyard::bench
