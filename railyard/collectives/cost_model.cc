#include "railyard/collectives/cost_model.h"

#include <algorithm>
#include <vector>

namespace railyard::collectives {
namespace {

// Sends that leave a host, and sends that stay on it, in one step.
struct HostTraffic {
  int off_out = 0;
  int off_in = 0;
  int on_host = 0;
};

}  // namespace

// From the stripe size a message spreads over every rail, below it each
// message takes one rail, round robin.
double network_us(const FabricModel& fabric, int messages, double bytes) {
  if (messages == 0) {
    return 0.0;
  }
  const int rails =
      bytes >= fabric.stripe_from_bytes ? fabric.rails : std::min(messages, fabric.rails);
  return fabric.latency_us + messages * bytes / (rails * fabric.rail_bytes_per_us);
}

double posting_us(const FabricModel& fabric, int messages) {
  return std::max(messages - 1, 0) * fabric.message_gap_us;
}

double on_host_us(const FabricModel& fabric, int messages, double bytes) {
  if (messages == 0) {
    return 0.0;
  }
  const double rate = std::min(fabric.copy_bytes_per_us, fabric.host_copy_bytes_per_us / messages);
  return fabric.host_latency_us + bytes / rate;
}

double step_us(const CostQuery& query, double bytes, const std::function<int(int)>& to) {
  std::vector<HostTraffic> traffic(static_cast<std::size_t>(query.host_count()));
  for (int rank = 0; rank < query.ranks; ++rank) {
    const int target = to(rank);
    if (target < 0) {
      continue;
    }
    const int from_host = query.host_of(rank);
    const int to_host = query.host_of(target);
    if (from_host == to_host) {
      ++traffic[static_cast<std::size_t>(from_host)].on_host;
    } else {
      ++traffic[static_cast<std::size_t>(from_host)].off_out;
      ++traffic[static_cast<std::size_t>(to_host)].off_in;
    }
  }
  double slowest = 0.0;
  for (const HostTraffic& host : traffic) {
    const double network =
        network_us(query.fabric, query.concurrent * std::max(host.off_out, host.off_in), bytes);
    slowest = std::max(
        {slowest, network, on_host_us(query.fabric, query.concurrent * host.on_host, bytes)});
  }
  return slowest;
}

int CostQuery::ranks_per_host() const noexcept {
  if (shape.ranks_per_host > 0) {
    return shape.ranks_per_host;
  }
  const int hosts = std::max(shape.hosts, 1);
  return std::max((ranks + hosts - 1) / hosts, 1);
}

double shift_step_us(const CostQuery& query, double bytes, int distance) {
  const int ranks = query.ranks;
  const int per_host = query.ranks_per_host();
  if (ranks % per_host != 0) {
    return step_us(query, bytes, [&](int rank) { return (rank + distance) % ranks; });
  }
  // Hosts of equal size see the same shift: the first host stands for all,
  // sending off it as many as it receives.
  int off_host = 0;
  for (int rank = 0; rank < per_host; ++rank) {
    off_host += static_cast<int>(query.host_of((rank + distance) % ranks) != 0);
  }
  return std::max(network_us(query.fabric, query.concurrent * off_host, bytes),
                  on_host_us(query.fabric, query.concurrent * (per_host - off_host), bytes));
}

double xor_step_us(const CostQuery& query, double bytes, int mask) {
  const int members = floor_pow2(query.ranks);
  return step_us(query, bytes, [&](int rank) { return rank < members ? rank ^ mask : -1; });
}

double tree_step_us(const CostQuery& query, double bytes, int mask) {
  const int ranks = query.ranks;
  return step_us(query, bytes, [&](int rank) {
    return rank % (2 * mask) == 0 && rank + mask < ranks ? rank + mask : -1;
  });
}

double fan_step_us(const CostQuery& query, double bytes_each) {
  // One rank's link and copies carry every block: p - 1 sends in a row on
  // the root's side, the network's share over every rail it has.
  const int per_host = std::min(query.ranks_per_host(), query.ranks);
  const int off_host = query.ranks - per_host;
  const double network = network_us(query.fabric, query.concurrent * off_host, bytes_each);
  const double copies = per_host > 1
                            ? query.fabric.host_latency_us +
                                  (per_host - 1) * bytes_each / query.fabric.copy_bytes_per_us
                            : 0.0;
  return std::max(network, copies) + posting_us(query.fabric, query.ranks - 1);
}

double reduce_us(const CostQuery& query, double bytes) {
  return bytes / query.fabric.reduce_bytes_per_us;
}

double copy_us(const CostQuery& query, double bytes) {
  return bytes / query.fabric.copy_bytes_per_us;
}

double ring_us(const CostQuery& query, double block, bool reducing) {
  if (query.ranks < 2) {
    return 0.0;
  }
  // Every step of a ring moves the same blocks between the same hosts.
  const double step = shift_step_us(query, block, 1) + (reducing ? reduce_us(query, block) : 0.0);
  return (query.ranks - 1) * step;
}

double pairwise_us(const CostQuery& query, double block) {
  double total = 0.0;
  for (int distance = 1; distance < query.ranks; ++distance) {
    total += shift_step_us(query, block, distance);
  }
  return total;
}

double binomial_us(const CostQuery& query, double bytes, bool reducing) {
  double total = 0.0;
  for (int mask = query.ranks > 1 ? floor_pow2(query.ranks - 1) : 0; mask > 0; mask /= 2) {
    total += tree_step_us(query, bytes, mask) + (reducing ? reduce_us(query, bytes) : 0.0);
  }
  return total;
}

double binomial_blocks_us(const CostQuery& query, double block) {
  double total = 0.0;
  for (int mask = query.ranks > 1 ? floor_pow2(query.ranks - 1) : 0; mask > 0; mask /= 2) {
    total += tree_step_us(query, block * mask, mask);
  }
  return total;
}

double fold_us(const CostQuery& query, double bytes, bool reducing) {
  const int extra = query.ranks - floor_pow2(query.ranks);
  if (extra == 0) {
    return 0.0;
  }
  // The first 2 * extra ranks pair up, odd into even.
  const double step = step_us(
      query, bytes, [&](int rank) { return rank < 2 * extra && rank % 2 == 1 ? rank - 1 : -1; });
  return 2 * step + (reducing ? reduce_us(query, bytes) : 0.0);
}

double halving_exchanges_us(const CostQuery& query, double bytes, bool nearest_first) {
  const int members = floor_pow2(query.ranks);
  double total = 0.0;
  double share = bytes;
  for (int step = 1; step < members; step *= 2) {
    share /= 2;
    total += xor_step_us(query, share, nearest_first ? step : members / (2 * step));
  }
  return total;
}

double halving_reduce_us(const CostQuery& query, double bytes) {
  const int members = floor_pow2(query.ranks);
  return reduce_us(query, bytes - bytes / members);
}

int ceil_log2(int n) noexcept {
  int steps = 0;
  while ((1 << steps) < n) {
    ++steps;
  }
  return steps;
}

int floor_pow2(int n) noexcept {
  int power = 1;
  while (power * 2 <= n) {
    power *= 2;
  }
  return power;
}

}  // namespace railyard::collectives
