// What an algorithm talks through: its team's ranks, on the tag of this one
// collective, so that collectives in flight together never take each
// other's messages, nor the program's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "railyard/collectives/collective.h"
#include "railyard/collectives/team.h"
#include "railyard/collectives/transfer.h"

namespace railyard::collectives {

class Channel {
 public:
  // Takes the team's next collective tag. `name` (a string literal) names
  // the collective in errors. The team must outlive the channel.
  Channel(const Team& team, const char* name);

  // A channel over some of this one's ranks, for an algorithm that runs
  // steps among a subset (the ranks of one host, or one rank of each host):
  // rank i of the new channel is rank members[i] of this one, which must
  // hold this rank. Its messages go on stream `stream` of this collective,
  // so that subsets working side by side between the same ranks on
  // different streams never take each other's messages.
  [[nodiscard]] Channel subset(std::span<const int> members, std::uint32_t stream) const;
  // This channel on stream `stream` of its collective (its ranks as they
  // are): for steps whose messages must not meet the others'.
  [[nodiscard]] Channel on_stream(std::uint32_t stream) const;

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] const Team& team() const noexcept { return *team_; }
  // The team rank of a rank of this channel.
  [[nodiscard]] int team_rank(int rank) const noexcept {
    return members_ ? (*members_)[static_cast<std::size_t>(rank)] : rank;
  }
  // The host a rank of this channel runs on (Team::host_index).
  [[nodiscard]] int host_index(int rank) const { return team_->host_index(team_rank(rank)); }

  [[nodiscard]] Transfer send(const void* data, std::size_t bytes, int to) const;
  [[nodiscard]] Transfer recv(void* data, std::size_t bytes, int from) const;
  // After a finished receive from `from`: throws UsageError naming both
  // ranks when it brought other than `bytes` (ranks called the collective
  // with different counts).
  void expect(const Transfer& received, std::size_t bytes, int from) const;
  [[nodiscard]] const char* name() const noexcept { return name_; }

 private:
  const Team* team_;
  const char* name_;
  std::uint64_t tag_;
  int rank_;
  int size_;
  // Team rank of each rank of a subset; null: every rank, as is.
  std::shared_ptr<const std::vector<int>> members_;
};

}  // namespace railyard::collectives
