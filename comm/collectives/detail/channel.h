// What an algorithm talks through: its communicator's ranks, on the tag of
// this one collective, so that collectives in flight together never take
// each other's messages, nor the program's own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "railyard/comm/collectives/detail/task.h"
#include "railyard/comm/communicator.h"

namespace railyard::comm::detail {

class Channel {
 public:
  // Takes the communicator's next collective number: every rank starts its
  // collectives in the same order (as MPI requires), so they agree on it.
  // `name` (a string literal) names the collective in errors.
  Channel(const Communicator& comm, const char* name);

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] const Communicator& comm() const noexcept { return comm_; }

  [[nodiscard]] Request send(const void* data, std::size_t bytes, int to) const;
  [[nodiscard]] Request recv(void* data, std::size_t bytes, int from) const;
  // After a finished receive from `from`: throws UsageError naming both
  // ranks when it brought other than `bytes` (ranks called the collective
  // with different counts).
  void expect(const Request& received, std::size_t bytes, int from) const;
  // The request of the collective `task` carries out on `comm`; its first
  // transfers are posted before it returns.
  [[nodiscard]] static Request start(const Communicator& comm, const char* name,
                                     CollectiveTask task);
  [[nodiscard]] const char* name() const noexcept { return name_; }

 private:
  Communicator comm_;
  const char* name_;
  std::uint64_t wire_;
  int rank_;
  int size_;
};

}  // namespace railyard::comm::detail
