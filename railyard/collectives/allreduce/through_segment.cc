// The allreduce steps through a host segment that the one-host allreduce
// (allreduce_shared_segment.cc) and split-rail's same-host steps
// (allreduce_split_rail.cc) share.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "railyard/collectives/allreduce/flat.h"
#include "railyard/collectives/allreduce/through_segment.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/host_segment.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/task.h"
#include "railyard/common/error.h"

namespace railyard::collectives::detail {
namespace {

// A chunk that every rank reduces whole, reading every rank's slot, needs
// one barrier instead of two; up to about this many bytes read per rank
// the barrier costs more than the reads (docs/benchmarks.md, "Tuning
// choices").
constexpr std::size_t kOneBarrierReadBytes = std::size_t{64} << 10;

// Chunks lane, lane + lanes, ... of the vector through lane `lane` of the
// segment. Every lane runs at least one chunk, empty when the vector is
// short, so that every lane's first barrier compares the ranks' calls; a
// difference is left in `mismatch` (every lane of every rank finds it,
// after the same barrier, so the segment stays usable).
CollectiveTask run_lane(HostSegment& segment, int lane, const Channel& local, const Channel* across,
                        CollectiveArgs args, std::optional<std::string>& mismatch) {
  const std::size_t element = size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  const std::size_t per = segment.slot_bytes() / element;
  const auto stride = static_cast<std::size_t>(segment.lanes()) * per;
  const SegmentCall mine = SegmentCall::of(args);
  // No network step, and a short vector: every rank reduces all of it.
  const bool one_barrier =
      across == nullptr &&
      args.count <= kOneBarrierReadBytes / element / static_cast<std::size_t>(segment.ranks());
  bool first_of_lane = true;
  for (std::size_t first = static_cast<std::size_t>(lane) * per;
       first_of_lane || first < args.count; first += stride) {
    const std::size_t length = first < args.count ? std::min(per, args.count - first) : 0;
    const unsigned set = segment.take_set(lane);
    if (length != 0) {
      std::memcpy(segment.slot(lane, set, segment.rank()), source + first * element,
                  length * element);
    }
    co_await Until{segment.arrive(lane)};
    if (first_of_lane) {
      first_of_lane = false;
      // Every rank's call stays in place until this rank leaves this one
      // (HostSegment::describe), and every rank finds the same difference:
      // all leave after this barrier, whatever chunks their counts meant.
      if (const std::optional<Mismatch> differs = segment.mismatch(mine)) {
        mismatch = differs->describe(local, mine);
        co_return;
      }
    }
    if (one_barrier) {
      if (length != 0) {
        segment.reduce_all(lane, set, length, args.type, args.op, data + first * element);
      }
      continue;
    }
    const HostSegment::Slice slice = segment.reduce_slice(lane, set, length, args.type, args.op);
    if (across != nullptr && length != 0) {
      CollectiveArgs block;
      block.recv = slice.data;
      block.count = slice.count;
      block.type = args.type;
      block.op = args.op;
      block.in_place = true;
      co_await flat_allreduce(*across, block);
    }
    co_await Until{segment.arrive(lane)};
    if (length != 0) {
      std::memcpy(data + first * element, segment.slot(lane, set, 0), length * element);
    }
  }
}

}  // namespace

CollectiveTask allreduce_through_segment(HostSegment& segment, const Channel& local,
                                         std::span<const Channel> across, CollectiveArgs args) {
  const OutsideWaiter waiting(segment.outside());
  segment.begin(local.name());
  segment.describe(SegmentCall::of(args));
  std::optional<std::string> mismatch;
  std::vector<CollectiveTask> lanes;
  lanes.reserve(static_cast<std::size_t>(segment.lanes()));
  for (int lane = 0; lane < segment.lanes(); ++lane) {
    lanes.push_back(run_lane(segment, lane, local,
                             across.empty() ? nullptr : &across[static_cast<std::size_t>(lane)],
                             args, mismatch));
  }
  co_await SideBySide{lanes};
  segment.end();
  if (mismatch) {
    throw UsageError(*mismatch);
  }
}

}  // namespace railyard::collectives::detail
