// What an algorithm talks through: its communicator's ranks, on the tag of
// this one collective, so that collectives in flight together never take
// each other's messages, nor the program's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "railyard/collectives/detail/task.h"
#include "railyard/comm/communicator.h"

namespace railyard::comm::detail {

struct Group;
class World;

class Channel {
 public:
  // Takes the communicator's next collective number: every rank starts its
  // collectives in the same order (as MPI requires), so they agree on it.
  // `name` (a string literal) names the collective in errors.
  Channel(const Communicator& comm, const char* name);

  // A channel over some of this one's ranks, for an algorithm that runs
  // steps among a subset (the ranks of one host, or one rank of each host):
  // rank i of the new channel is rank members[i] of this one, which must
  // hold this rank. Its messages go on stream `stream` of this collective
  // (tag_layout.h), so that subsets working side by side between the same
  // ranks on different streams never take each other's messages.
  [[nodiscard]] Channel subset(std::span<const int> members, std::uint32_t stream) const;
  // This channel on stream `stream` of its collective (its ranks as they
  // are): for steps whose messages must not meet the others'.
  [[nodiscard]] Channel on_stream(std::uint32_t stream) const;

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] const Communicator& comm() const noexcept { return comm_; }
  // The communicator's group and job, for what an algorithm keeps with
  // them (a host segment).
  [[nodiscard]] const Group& group() const noexcept;
  [[nodiscard]] World& world() const noexcept;
  // The communicator rank of a rank of this channel.
  [[nodiscard]] int comm_rank(int rank) const noexcept {
    return members_ ? (*members_)[static_cast<std::size_t>(rank)] : rank;
  }

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
  // Communicator rank of each rank of a subset; null: every rank, as is.
  std::shared_ptr<const std::vector<int>> members_;
};

}  // namespace railyard::comm::detail
