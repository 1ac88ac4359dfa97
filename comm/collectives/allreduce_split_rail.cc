// Allreduce over hosts that each run several ranks, split by host as UCC's
// hierarchical (split-rail) allreduce is: the ranks of a host reduce-scatter
// the vector among themselves over the same-host path (shared memory when
// the Communicator found it), so local rank l holds block l reduced over
// its host; the L ranks with the same local rank, one per host, then run L
// allreduces side by side, each of its own block only; and the host's ranks
// allgather the blocks. A host so sends and receives its vector once over
// the network in all, shared by its ranks, where a flat ring passes every
// rank's traffic through it. Each of those allreduces stripes over every
// rail of its rank's endpoint, as all traffic does; UCC gives each local
// rank a share of the NICs instead, which needs the multi-rail layer to
// keep one message to some of a peer's paths (it cannot yet).
//
// Large vectors go in segments, and three lanes of segments run side by side
// on streams of their own, so that one lane's same-host steps overlap the
// others' network steps. In a blocking call, the same-host steps go
// through the host segment (host_segment.h), one lane of it per pipeline
// lane: each rank copies a pipeline segment of the vector into its slot,
// reduces its block of every slot into rank 0's slot after a barrier, runs
// the network allreduce of that block in place there, and after a second
// barrier copies the whole result out; no same-host message at all. Every
// block is reduced in the same order wherever it ends up, so every rank
// gets the same bits. Ranks not spread evenly over
// several hosts with several ranks each run the flat allreduce instead.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "railyard/comm/collectives/detail/algorithms.h"
#include "railyard/comm/collectives/detail/host_groups.h"
#include "railyard/comm/collectives/detail/host_segment.h"
#include "railyard/comm/errors.h"

namespace railyard::comm::detail {
namespace {

// One segment: `count` elements of the input at `source` reduced into
// `data` over every host.
CollectiveTask reduce_segment(const Channel& local, const Channel& across, const std::byte* source,
                              std::byte* data, std::size_t count, DataType type, ReduceOp op) {
  const std::size_t element = size_of(type);
  const Blocks blocks{count, static_cast<std::size_t>(local.size())};
  const HeldLayout layout(blocks);
  co_await ring_reduce_scatter(local, source, data, layout.view(), type, op);
  const auto mine = static_cast<std::size_t>(local.rank());
  CollectiveArgs block;
  block.recv = data + blocks.offset(mine) * element;
  block.count = blocks.length(mine);
  block.type = type;
  block.op = op;
  block.in_place = true;
  co_await flat_allreduce(across, block);
  co_await ring_allgather(local, data, blocks, element);
}

// Segments lane, lane + kSplitRailLanes, ... of the vector, one after the other.
CollectiveTask run_lane(Channel local, Channel across, const std::byte* source, std::byte* data,
                        std::size_t count, std::size_t segment, std::uint32_t lane, DataType type,
                        ReduceOp op) {
  const std::size_t element = size_of(type);
  for (std::size_t first = lane * segment; first < count; first += kSplitRailLanes * segment) {
    const std::size_t length = std::min(segment, count - first);
    co_await reduce_segment(local, across, source + first * element, data + first * element, length,
                            type, op);
  }
}

// The stream of the host segment's setup messages: past the lanes'.
constexpr std::uint32_t kSetupStream = 1 + kSplitRailLanes;

// Segments lane, lane + kSplitRailLanes, ... of the vector through lane
// `lane` of the host's segment. Every lane runs at least one segment, empty
// when the vector is short, so that every lane's first barrier compares
// the ranks' calls; a difference is left in `mismatch` (the lanes all find
// it, after the same barriers).
CollectiveTask run_shared_lane(HostSegment& segment, int lane, Channel local, Channel across,
                               CollectiveArgs args, std::optional<std::string>& mismatch) {
  const std::size_t element = size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  const std::size_t per = segment.slot_bytes() / element;
  const SegmentCall mine = SegmentCall::of(args);
  bool first_of_lane = true;
  for (std::size_t first = static_cast<std::size_t>(lane) * per;
       first_of_lane || first < args.count; first += kSplitRailLanes * per) {
    const std::size_t length = first < args.count ? std::min(per, args.count - first) : 0;
    const unsigned set = segment.take_set(lane);
    if (length != 0) {
      std::memcpy(segment.slot(lane, set, segment.rank()), source + first * element,
                  length * element);
    }
    co_await Until{segment.arrive(lane)};
    if (first_of_lane) {
      first_of_lane = false;
      if (const std::optional<Mismatch> differs = segment.mismatch(mine)) {
        mismatch = differs->describe(local, mine);
        co_await Until{segment.arrive(lane)};
        co_return;
      }
    }
    const HostSegment::Slice slice = segment.reduce_slice(lane, set, length, args.type, args.op);
    if (length != 0) {
      CollectiveArgs block;
      block.recv = slice.data;
      block.count = slice.count;
      block.type = args.type;
      block.op = args.op;
      block.in_place = true;
      co_await flat_allreduce(across, block);
    }
    co_await Until{segment.arrive(lane)};
    if (length != 0) {
      std::memcpy(data + first * element, segment.slot(lane, set, 0), length * element);
    }
  }
}

// The lanes through the host segment, begun and ended as one call on it.
CollectiveTask run_shared(HostSegment& segment, const Channel& channel, const HostGroups& groups,
                          CollectiveArgs args) {
  const OutsideWaiter waiting(segment.outside());
  segment.begin(channel.name());
  segment.describe(SegmentCall::of(args));
  std::optional<std::string> mismatch;
  std::array<CollectiveTask, kSplitRailLanes> lanes;
  for (std::uint32_t lane = 0; lane < kSplitRailLanes; ++lane) {
    lanes[lane] =
        run_shared_lane(segment, static_cast<int>(lane), channel.subset(groups.local, 1 + lane),
                        channel.subset(groups.across, 1 + lane), args, mismatch);
  }
  co_await SideBySide{lanes};
  segment.end();
  if (mismatch) {
    throw UsageError(*mismatch);
  }
}

}  // namespace

CollectiveTask allreduce_split_rail(Channel channel, CollectiveArgs args) {
  const std::optional<HostGroups> groups = host_groups(channel);
  if (!groups) {
    co_await flat_allreduce(std::move(channel), args);
    co_return;
  }
  const Channel host = channel.subset(groups->local, kSetupStream);
  if (host_segment_applies(host, args)) {
    std::shared_ptr<HostSegment> segment;
    co_await host_segment_of(host, kSetupStream, kSplitRailLanes, segment);
    if (segment) {
      co_await run_shared(*segment, channel, *groups, args);
      co_return;
    }
  }
  const std::size_t element = size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  const std::size_t segment = std::max<std::size_t>(1, kSplitRailSegmentBytes / element);
  // Streams 1.. for the lanes: each lane's two subsets on a stream of its own.
  std::array<CollectiveTask, kSplitRailLanes> lanes;
  for (std::uint32_t lane = 0; lane < kSplitRailLanes; ++lane) {
    lanes[lane] =
        run_lane(channel.subset(groups->local, 1 + lane), channel.subset(groups->across, 1 + lane),
                 source, data, args.count, segment, lane, args.type, args.op);
  }
  co_await SideBySide{lanes};
}

}  // namespace railyard::comm::detail
