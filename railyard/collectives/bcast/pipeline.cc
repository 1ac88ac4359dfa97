// Broadcast of a long vector over hosts, pipelined: the vector goes in
// segments down a chain of one rank per host (the root, then the hosts in
// index order from the root's), and each of those passes every segment on
// to the next host and to the other ranks of its own host as soon as it
// has it. Each host's link carries the vector once in and once out, while
// the ranks of a host copy the segments that have crossed: about the
// vector's time over the rails plus one segment's per host, where the
// scatter-allgather carries 2(p-1)/p of it and the binomial tree log2 p
// times. The root is done once its sends are. Any p.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

// Segments short enough that the chain fills in a few percent of the
// vector's time, long enough that each costs little over its bytes; on
// many hosts shorter, so that filling the chain (a segment's time per
// host) stays within an eighth of the vector's.
constexpr std::size_t kShortestSegment = std::size_t{32} << 10;
constexpr std::size_t kLongestSegment = std::size_t{1} << 20;
constexpr std::size_t kSegmentsPerVector = 64;
constexpr std::size_t kFillShare = 8;

std::size_t segment_bytes(std::size_t bytes, std::size_t hosts) noexcept {
  const std::size_t fill = bytes / (kFillShare * std::max<std::size_t>(hosts, 2) - kFillShare);
  return std::clamp(std::min(bytes / kSegmentsPerVector, fill), kShortestSegment, kLongestSegment);
}

// This rank's place: whom it takes the segments from, and whom it passes
// them to (the next host's first, as its link is the slower).
struct ChainPlace {
  int parent = -1;
  std::vector<int> children;
  std::size_t hosts = 1;
};

ChainPlace place_in_chain(const Channel& channel, int root) {
  const int size = channel.size();
  std::vector<int> host_of(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) {
    host_of[static_cast<std::size_t>(rank)] = channel.host_index(rank);
  }
  // The hosts in index order, and the rank that leads each: the root on
  // its own, the lowest rank on the others.
  std::vector<int> hosts = host_of;
  std::ranges::sort(hosts);
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  const auto place_of = [&](int host) {
    return static_cast<std::size_t>(std::ranges::lower_bound(hosts, host) - hosts.begin());
  };
  std::vector<int> leader(hosts.size(), -1);
  for (int rank = size - 1; rank >= 0; --rank) {
    leader[place_of(host_of[static_cast<std::size_t>(rank)])] = rank;
  }
  const std::size_t root_host = place_of(host_of[static_cast<std::size_t>(root)]);
  leader[root_host] = root;

  const int me = channel.rank();
  const std::size_t my_host = place_of(host_of[static_cast<std::size_t>(me)]);
  ChainPlace place;
  place.hosts = hosts.size();
  if (leader[my_host] != me) {
    place.parent = leader[my_host];
    return place;
  }
  // Hosts in chain order: the root's first.
  const std::size_t step = (my_host + hosts.size() - root_host) % hosts.size();
  if (step > 0) {
    place.parent = leader[(my_host + hosts.size() - 1) % hosts.size()];
  }
  if (step + 1 < hosts.size()) {
    place.children.push_back(leader[(my_host + 1) % hosts.size()]);
  }
  for (int rank = 0; rank < size; ++rank) {
    if (rank != me && place_of(host_of[static_cast<std::size_t>(rank)]) == my_host) {
      place.children.push_back(rank);
    }
  }
  return place;
}

CollectiveTask bcast_pipeline(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const ChainPlace place = place_in_chain(channel, args.root);
  const Segments segments =
      Segments::of_bytes(segment_bytes(args.count * element, place.hosts), element);
  const std::size_t count = args.count == 0 ? 0 : segments.count(args.count);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto at = [&](std::size_t k) { return data + segments.first(k, args.count) * element; };
  const auto bytes = [&](std::size_t k) { return segments.length(k, args.count) * element; };

  // Every segment's receive at once: the parent's sends match them in
  // order, and each segment can cross while the last is passed on.
  std::vector<Transfer> received;
  if (place.parent >= 0) {
    received.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
      received.push_back(channel.recv(at(k), bytes(k), place.parent));
    }
  }
  std::vector<Transfer> sent;
  sent.reserve(count * place.children.size());
  for (std::size_t k = 0; k < count; ++k) {
    if (place.parent >= 0) {
      co_await Transfers{std::span(received).subspan(k, 1)};
      channel.expect(received[k], bytes(k), place.parent);
    }
    for (const int child : place.children) {
      sent.push_back(channel.send(at(k), bytes(k), child));
    }
  }
  co_await Transfers{sent};
}

// The first segment crosses every host link in turn (the chain fills),
// the others stream behind it at the slower of a link's and a leader's
// copies' pace, and the last host's ranks copy the last one.
double bcast_pipeline_cost(const CostQuery& query) {
  const auto bytes = static_cast<double>(query.bytes);
  const int per_host = query.ranks_per_host();
  const int hosts = query.host_count();
  const auto segment =
      static_cast<double>(segment_bytes(query.bytes, static_cast<std::size_t>(std::max(hosts, 1))));
  const double count = std::max(1.0, std::ceil(bytes / segment));
  const double piece = bytes / count;
  CostQuery pair = query;
  pair.ranks = 2;
  pair.shape = HostShape{2, 1};
  const double hop = hosts > 1 ? shift_step_us(pair, piece, 1) : 0.0;
  const double crossing = hosts > 1 ? hop - query.fabric.latency_us : 0.0;
  const double within = per_host > 1 ? copy_us(query, piece) * (per_host - 1) : 0.0;
  return (hosts - 1) * hop + (count - 1) * std::max(crossing, within) + within;
}

const Registration kBcastPipeline{Algorithm{
    Collective::kBcast, "pipeline",
    "segments down a chain of one rank per host, each passing them on to the next host and "
    "its own host's ranks as they come: long vectors over several hosts",
    bcast_pipeline, bcast_pipeline_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
