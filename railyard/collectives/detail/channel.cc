#include "railyard/collectives/detail/channel.h"

#include <fmt/format.h>

#include "railyard/comm/detail/tag_layout.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/error.h"

namespace railyard::comm::detail {

Channel::Channel(const Communicator& comm, const char* name)
    : comm_(comm),
      name_(name),
      wire_(wire_tag(
          comm.context(), true,
          collective_tag(comm.group_->collectives.fetch_add(1, std::memory_order_relaxed)))),
      rank_(comm.rank()),
      size_(comm.size()) {}

const Group& Channel::group() const noexcept { return *comm_.group_; }

World& Channel::world() const noexcept { return comm_.world_state(); }

Channel Channel::subset(std::span<const int> members, std::uint32_t stream) const {
  Channel sub = *this;
  auto ranks = std::make_shared<std::vector<int>>();
  ranks->reserve(members.size());
  sub.rank_ = -1;
  for (const int member : members) {
    if (member == rank_) {
      sub.rank_ = static_cast<int>(ranks->size());
    }
    ranks->push_back(comm_rank(member));
  }
  if (sub.rank_ < 0) {
    throw Error(fmt::format("{}: rank {} is not in the subset of ranks it runs a step with", name_,
                            comm_rank(rank_)));
  }
  sub.size_ = static_cast<int>(ranks->size());
  sub.wire_ = stream_tag(wire_, stream);
  sub.members_ = std::move(ranks);
  return sub;
}

Channel Channel::on_stream(std::uint32_t stream) const {
  Channel moved = *this;
  moved.wire_ = stream_tag(wire_, stream);
  return moved;
}

Request Channel::send(const void* data, std::size_t bytes, int to) const {
  // The payload is only read; the communicator's one start() serves both.
  return comm_.post_collective(false, const_cast<void*>(data),  // NOLINT(*-const-cast)
                               bytes, comm_rank(to), wire_);
}

Request Channel::recv(void* data, std::size_t bytes, int from) const {
  return comm_.post_collective(true, data, bytes, comm_rank(from), wire_);
}

Request Channel::start(const Communicator& comm, const char* name, CollectiveTask task) {
  return comm.start_collective(name, std::move(task));
}

void Channel::expect(const Request& received, std::size_t bytes, int from) const {
  if (received.status().bytes != bytes) {
    throw UsageError(fmt::format(
        "{}: rank {} sent {} bytes where rank {} expected {}: the ranks called it with different "
        "counts (or types)",
        name_, comm_rank(from), received.status().bytes, comm_rank(rank_), bytes));
  }
}

}  // namespace railyard::comm::detail
