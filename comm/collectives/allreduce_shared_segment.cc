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
// (docs/benchmarks.md, "The host segment").
//
// Where it does not apply (several hosts, a non-blocking call, RAILYARD_SHM
// off, or a segment one rank could not map) it runs the table's allreduce
// over messages instead.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "railyard/comm/collectives/detail/algorithms.h"
#include "railyard/comm/collectives/detail/host_segment.h"
#include "railyard/comm/errors.h"
#include "railyard/common/detail/log.h"

namespace railyard::comm::detail {
namespace {

// The stream of the setup messages (join_host_segment).
constexpr std::uint32_t kSetupStream = 1;

CollectiveTask reduce_through(const Channel& channel, HostSegment& segment, CollectiveArgs args) {
  segment.begin(channel.name());
  const std::size_t element = size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  const std::size_t per_chunk = segment.slot_bytes() / element;
  const int me = segment.rank();
  const SegmentCall mine = SegmentCall::of(args);
  segment.describe(mine);
  // The first chunk runs even for an empty vector: its barrier is where
  // the ranks compare their calls.
  std::size_t first = 0;
  do {
    const std::size_t length = std::min(per_chunk, args.count - first);
    const unsigned set = segment.take_set(0);
    if (length != 0) {
      std::memcpy(segment.slot(0, set, me), source + first * element, length * element);
    }
    co_await Until{segment.arrive(0)};
    // Read now: past the next barrier a rank may be in its next call.
    const std::optional<Mismatch> differs =
        first == 0 ? segment.mismatch(mine) : std::optional<Mismatch>();
    if (!differs) {
      (void)segment.reduce_slice(0, set, length, args.type, args.op);
    }
    co_await Until{segment.arrive(0)};
    if (differs) {
      // Every rank saw the same calls, so every rank throws here, each
      // after the same two barriers: the segment stays usable.
      segment.end();
      throw UsageError(differs->describe(channel, mine));
    }
    if (length != 0) {
      std::memcpy(data + first * element, segment.slot(0, set, 0), length * element);
    }
    first += length;
  } while (first < args.count);
  segment.end();
}

}  // namespace

CollectiveTask allreduce_shared_segment(Channel channel, CollectiveArgs args) {
  std::shared_ptr<HostSegment> segment;
  if (channel.comm().host_count() == 1 && host_segment_applies(channel, args)) {
    co_await host_segment_of(channel, kSetupStream, 1, segment);
  }
  if (!segment) {
    co_await flat_allreduce(std::move(channel), args);
    co_return;
  }
  const OutsideWaiter waiting(segment->outside());
  co_await reduce_through(channel, *segment, args);
}

}  // namespace railyard::comm::detail
