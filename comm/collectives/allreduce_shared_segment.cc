// Allreduce among the ranks of one host through a segment they all map
// (host_segment.h), with no message once the segment exists: chunk by
// chunk, every rank copies its part of the vector into its slot, and after
// a barrier reduces 1/p of the chunk over every slot, in rank order, into
// rank 0's slot; after a second barrier every rank copies the whole reduced
// chunk out. Each element is reduced by one rank only, so every rank gets
// the same bits. Over messages (the shm provider), a 1 MiB allreduce of 4
// ranks moves each rank's data through 2(p-1) rendezvous steps, each a
// request, a read and a reply; here it is two copies and two barriers, as
// Open MPI's coll/sm and vader's single-copy paths avoid messages too
// (docs/benchmarks.md, "A shared segment").
//
// Where it does not apply (several hosts, a non-blocking call, RAILYARD_SHM
// off, or a segment one rank could not map) it runs the table's allreduce
// over messages instead.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#include "railyard/comm/collectives/detail/algorithms.h"
#include "railyard/comm/collectives/detail/host_segment.h"
#include "railyard/comm/collectives/reduction.h"
#include "railyard/comm/errors.h"
#include "railyard/common/detail/log.h"

namespace railyard::comm::detail {
namespace {

// The stream of the setup messages (join_host_segment).
constexpr std::uint32_t kSetupStream = 1;

// The first rank whose call differs from `mine`, or -1.
int first_mismatch(const HostSegment& segment, const SegmentCall& mine) noexcept {
  for (int rank = 0; rank < segment.ranks(); ++rank) {
    if (segment.call(rank) != mine) {
      return rank;
    }
  }
  return -1;
}

[[noreturn]] void throw_mismatch(const Channel& channel, int rank, const SegmentCall& theirs,
                                 const SegmentCall& mine) {
  const auto describe = [](const SegmentCall& call) {
    return fmt::format("{} elements of {} ({})", call.count,
                       to_string(static_cast<DataType>(call.type)),
                       to_string(static_cast<ReduceOp>(call.op)));
  };
  throw UsageError(fmt::format(
      "{}: rank {} called it with {} where rank {} called it with {}: every rank must pass the "
      "same count, type and operation",
      channel.name(), channel.comm_rank(rank), describe(theirs), channel.comm_rank(channel.rank()),
      describe(mine)));
}

CollectiveTask reduce_through(const Channel& channel, HostSegment& segment, CollectiveArgs args) {
  segment.begin(channel.name());
  const std::size_t element = size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  const std::size_t per_chunk = segment.slot_bytes() / element;
  const int ranks = segment.ranks();
  const int me = segment.rank();
  const SegmentCall mine{args.count, static_cast<std::uint32_t>(args.type),
                         static_cast<std::uint32_t>(args.op)};
  segment.describe(mine);
  // The first chunk runs even for an empty vector: its barrier is where
  // the ranks compare their calls.
  std::size_t first = 0;
  do {
    const std::size_t length = std::min(per_chunk, args.count - first);
    const unsigned set = segment.take_set();
    if (length != 0) {
      std::memcpy(segment.slot(set, me), source + first * element, length * element);
    }
    co_await Until{segment.arrive()};
    const int differs = first == 0 ? first_mismatch(segment, mine) : -1;
    // Read now: past the next barrier that rank may be in its next call.
    const SegmentCall theirs = differs >= 0 ? segment.call(differs) : mine;
    if (differs < 0) {
      const Blocks slices{length, static_cast<std::size_t>(ranks)};
      const std::size_t offset = slices.offset(static_cast<std::size_t>(me)) * element;
      const std::size_t count = slices.length(static_cast<std::size_t>(me));
      std::byte* out = segment.slot(set, 0) + offset;
      for (int rank = 1; rank < ranks && count != 0; ++rank) {
        reduce(args.type, args.op, out, out, segment.slot(set, rank) + offset, count);
      }
    }
    co_await Until{segment.arrive()};
    if (differs >= 0) {
      // Every rank saw the same calls, so every rank throws here, each
      // after the same two barriers: the segment stays usable.
      segment.end();
      throw_mismatch(channel, differs, theirs, mine);
    }
    if (length != 0) {
      std::memcpy(data + first * element, segment.slot(set, 0), length * element);
    }
    first += length;
  } while (first < args.count);
  segment.end();
}

}  // namespace

CollectiveTask allreduce_shared_segment(Channel channel, CollectiveArgs args) {
  std::shared_ptr<HostSegment> segment;
  if (host_segment_applies(channel, args)) {
    HostSegmentSlot& slot = host_segment_slot(channel);
    bool join = false;
    {
      const std::scoped_lock lock(slot.mutex);
      join = !slot.tried;
      slot.tried = true;
      segment = slot.segment;
    }
    if (join) {
      co_await join_host_segment(channel, kSetupStream, segment);
      const std::scoped_lock lock(slot.mutex);
      slot.segment = segment;
    }
  }
  if (!segment) {
    co_await flat_allreduce(std::move(channel), args);
    co_return;
  }
  const OutsideWaiter waiting(segment->outside());
  co_await reduce_through(channel, *segment, args);
}

}  // namespace railyard::comm::detail
