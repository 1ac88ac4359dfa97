// Allreduce among the ranks of one host through a segment they all map
// (host_segment.h), with no message once the segment exists: chunk by
// chunk, every rank copies its part of the vector into its slot, and after
// a barrier reduces 1/p of the chunk over every slot, in rank order, into
// rank 0's slot; after a second barrier every rank copies the whole reduced
// chunk out. Each element is reduced by one rank only, so every rank gets
// the same bits. A short vector (up to 64 KiB read per rank over all the
// slots) is reduced whole by every rank, in the same order, after the
// first barrier: reading every slot costs less there than a second
// barrier. Over messages (the shm provider), a 1 MiB allreduce of 4 ranks
// moves each rank's data through 2(p-1) rendezvous steps, each a request,
// a read and a reply; here it is two copies and two barriers, as Open
// MPI's coll/sm and vader's single-copy paths avoid messages too.
//
// The steps are allreduce_through_segment's (through_segment.cc), with one
// lane. Where it does not apply (several hosts, a non-blocking call,
// RAILYARD_SHM or RAILYARD_HOST_SEGMENT off, or a segment one rank could
// not map) it runs the table's allreduce over messages instead.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "railyard/collectives/allreduce/flat.h"
#include "railyard/collectives/allreduce/through_segment.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/host_segment.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

// The stream of the setup messages (join_host_segment).
constexpr std::uint32_t kSegmentSetupStream = 1;

CollectiveTask allreduce_shared_segment(Channel channel, CollectiveArgs args) {
  std::shared_ptr<HostSegment> segment;
  if (channel.team().host_shape().hosts == 1 && host_segment_applies(channel, args)) {
    const Channel setup = channel.on_stream(kSegmentSetupStream);
    co_await host_segment_of(setup, 1, segment);
  }
  if (!segment) {
    co_await flat_allreduce(std::move(channel), args);
    co_return;
  }
  co_await allreduce_through_segment(*segment, channel, {}, args);
}

// One host only: each rank copies its vector in and the result out, and
// reduces 1/p of it over p slots, the host's memory shared by all;
// two barriers a chunk.
double allreduce_shared_segment_cost(const CostQuery& query) {
  if (query.shape.hosts > 1) {
    return std::numeric_limits<double>::infinity();
  }
  const auto bytes = static_cast<double>(query.bytes);
  const double memory =
      std::min(query.fabric.copy_bytes_per_us, query.fabric.host_copy_bytes_per_us / query.ranks);
  constexpr double kChunk = 512.0 * 1024;
  const double chunks = std::max(1.0, std::ceil(bytes / kChunk));
  const double barriers = 2 * chunks * ceil_log2(query.ranks) * query.fabric.host_latency_us;
  return 3 * bytes / memory + reduce_us(query, bytes) + barriers;
}

const Registration kAllreduceSharedSegment{Algorithm{
    Collective::kAllreduce, "shared_segment",
    "one host, blocking calls: copy into a segment every rank maps, reduce 1/p of it each, "
    "copy the result out; 2 barriers per 512 KiB chunk, no messages",
    allreduce_shared_segment, allreduce_shared_segment_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
