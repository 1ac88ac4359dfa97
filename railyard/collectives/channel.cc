#include "railyard/collectives/channel.h"

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard::collectives {

Channel::Channel(const Team& team, const char* name)
    : team_(&team),
      name_(name),
      tag_(team.next_collective_tag()),
      rank_(team.rank()),
      size_(team.size()) {}

Channel Channel::subset(std::span<const int> members, std::uint32_t stream) const {
  Channel sub = *this;
  auto ranks = std::make_shared<std::vector<int>>();
  ranks->reserve(members.size());
  sub.rank_ = -1;
  for (const int member : members) {
    if (member == rank_) {
      sub.rank_ = static_cast<int>(ranks->size());
    }
    ranks->push_back(team_rank(member));
  }
  if (sub.rank_ < 0) {
    throw Error(fmt::format("{}: rank {} is not in the subset of ranks it runs a step with", name_,
                            team_rank(rank_)));
  }
  sub.size_ = static_cast<int>(ranks->size());
  sub.tag_ = team_->stream_tag(tag_, stream);
  sub.members_ = std::move(ranks);
  return sub;
}

Channel Channel::on_stream(std::uint32_t stream) const {
  Channel moved = *this;
  moved.tag_ = team_->stream_tag(tag_, stream);
  return moved;
}

Transfer Channel::send(const void* data, std::size_t bytes, int to) const {
  // The payload is only read; the team's one post() serves both ways.
  return team_->post(false, const_cast<void*>(data),  // NOLINT(*-const-cast)
                     bytes, team_rank(to), tag_);
}

Transfer Channel::recv(void* data, std::size_t bytes, int from) const {
  return team_->post(true, data, bytes, team_rank(from), tag_);
}

void Channel::expect(const Transfer& received, std::size_t bytes, int from) const {
  if (received.bytes() != bytes) {
    throw UsageError(fmt::format(
        "{}: rank {} sent {} bytes where rank {} expected {}: the ranks called it with different "
        "counts (or types)",
        name_, team_rank(from), received.bytes(), team_rank(rank_), bytes));
  }
}

}  // namespace railyard::collectives
