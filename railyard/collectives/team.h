// What a collective needs of the ranks it runs on: the narrow interface the
// collectives see of a communicator, which implements it. Ranks are the
// team's (0 .. size-1); tags are the team's own 64-bit message tags, which
// keep one collective's messages from matching any other's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "railyard/collectives/collective.h"
#include "railyard/collectives/transfer.h"

namespace railyard::rail {
struct OutsideWork;
}  // namespace railyard::rail

namespace railyard::collectives {

class AlgorithmTable;
namespace detail {
class HostSegment;
}  // namespace detail

// What the collectives keep with a team for its lifetime: the segment of
// its ranks on this host, once they have tried to make one.
struct TeamState {
  std::mutex mutex;
  bool host_segment_tried = false;
  std::shared_ptr<detail::HostSegment> host_segment;  // null: the ranks could not make one
};

class Team {
 public:
  Team() = default;
  virtual ~Team() = default;
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  Team(Team&&) = delete;
  Team& operator=(Team&&) = delete;

  [[nodiscard]] virtual int rank() const noexcept = 0;
  [[nodiscard]] virtual int size() const noexcept = 0;
  // The host a rank runs on: ranks with the same index share a host.
  [[nodiscard]] virtual int host_index(int rank) const = 0;
  [[nodiscard]] virtual HostShape host_shape() const noexcept = 0;

  // The tag of this rank's next collective on the team: every rank starts
  // its collectives in the same order (as MPI requires), so they agree on it.
  [[nodiscard]] virtual std::uint64_t next_collective_tag() const noexcept = 0;
  // `tag` (a collective's) on stream `stream` of its collective: for steps
  // whose messages must not meet the others'.
  [[nodiscard]] virtual std::uint64_t stream_tag(std::uint64_t tag,
                                                 std::uint32_t stream) const noexcept = 0;
  // Posts a send of `bytes` at `data` to `rank`, or a receive into them
  // from it, on `tag`. Throws the typed error of one that cannot start.
  [[nodiscard]] virtual Transfer post(bool receive, void* data, std::size_t bytes, int rank,
                                      std::uint64_t tag) const = 0;

  // Which algorithm each collective runs.
  [[nodiscard]] virtual const AlgorithmTable& algorithms() const noexcept = 0;
  // Whether blocking collectives may go through memory the ranks of a host
  // share (RAILYARD_HOST_SEGMENT, RAILYARD_SHM).
  [[nodiscard]] virtual bool host_segment_allowed() const noexcept = 0;
  // Work outside the team's messages that this process's waits watch: a
  // collective stepping through shared memory counts itself there.
  [[nodiscard]] virtual rail::OutsideWork& outside_work() const noexcept = 0;
  [[nodiscard]] virtual TeamState& state() const noexcept = 0;
};

}  // namespace railyard::collectives
