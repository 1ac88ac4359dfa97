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
// through the host segment (host_segment.h, allreduce_through_segment), one
// lane of it per pipeline lane: each rank copies a pipeline segment of the
// vector into its slot, reduces its block of every slot into rank 0's slot
// after a barrier, runs the network allreduce of that block in place
// there, and after a second barrier copies the whole result out; no
// same-host message at all. Every block is reduced in the same order
// wherever it ends up, so every rank gets the same bits. Ranks not spread
// evenly over several hosts with several ranks each run the flat allreduce
// instead.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "railyard/collectives/allreduce/flat.h"
#include "railyard/collectives/allreduce/split_rail.h"
#include "railyard/collectives/allreduce/through_segment.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/host_groups.h"
#include "railyard/collectives/detail/host_segment.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
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
constexpr std::uint32_t kLanesSetupStream = 1 + kSplitRailLanes;

CollectiveTask allreduce_split_rail(Channel channel, CollectiveArgs args) {
  const std::optional<HostGroups> groups = host_groups(channel);
  if (!groups) {
    co_await flat_allreduce(std::move(channel), args);
    co_return;
  }
  const Channel host = channel.subset(groups->local, kLanesSetupStream);
  if (host_segment_applies(host, args)) {
    std::shared_ptr<HostSegment> segment;
    co_await host_segment_of(host, kSplitRailLanes, segment);
    if (segment) {
      // Streams 1.. for the lanes' network steps, as below.
      std::vector<Channel> across;
      across.reserve(kSplitRailLanes);
      for (std::uint32_t lane = 0; lane < kSplitRailLanes; ++lane) {
        across.push_back(channel.subset(groups->across, 1 + lane));
      }
      co_await allreduce_through_segment(*segment, host, across, args);
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

// Within each host a ring reduce-scatter and allgather of 1/L blocks; across
// hosts, segment by segment, L allreduces of 1/L of the segment side by
// side, each the flat table's choice for that size, sharing the host's
// rails. With several segments the lanes overlap one segment's same-host
// steps with the others' network steps.
double allreduce_split_rail_cost(const CostQuery& query) {
  const int local = query.ranks_per_host();
  const int hosts = query.host_count();
  if (hosts < 2 || local < 2) {
    return std::numeric_limits<double>::infinity();
  }
  const auto bytes = static_cast<double>(query.bytes);
  CostQuery within = query;
  within.ranks = local;
  within.shape = HostShape{1, local};
  const double memory =
      ring_us(within, bytes / local, true) + ring_us(within, bytes / local, false);
  const double segment = std::min(bytes, static_cast<double>(kSplitRailSegmentBytes));
  const double segments = segment > 0.0 ? std::ceil(bytes / segment) : 1.0;
  CostQuery across = query;
  across.ranks = hosts;
  across.bytes = static_cast<std::uint64_t>(segment / local);
  across.shape = HostShape{hosts, 1};
  across.concurrent = local;
  const Algorithm& flat = AlgorithmTable().choose(Collective::kAllreduce, across.bytes, hosts);
  const double network = segments * flat.cost(across);
  return segments > 1.0 ? std::max(network, memory) + memory / segments : network + memory;
}

const Registration kAllreduceSplitRail{Algorithm{
    Collective::kAllreduce, "split_rail",
    "several ranks per host: reduce-scatter within each host, one allreduce per local rank "
    "across hosts side by side, allgather within each host; pipelined in segments",
    allreduce_split_rail, allreduce_split_rail_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
