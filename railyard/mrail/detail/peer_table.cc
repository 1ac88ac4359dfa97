#include "railyard/mrail/detail/peer_table.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"
#include "railyard/shm/region_prefault.h"

namespace railyard::mrail::detail {
namespace {

// Messages from endpoints not inserted yet are kept up to this much.
constexpr std::uint64_t kMaxStrangerBytes = std::uint64_t{64} << 20;

}  // namespace

PeerId PeerTable::insert(std::span<const std::byte> blob) {
  const EndpointAddress remote = decode_address(blob);
  if (const auto known = ids_.find(remote.id); known != ids_.end()) {
    return known->second;
  }
  RailSet& rails = core_.rails;
  const Options& options = core_.options;
  std::vector<Path> paths;
  std::vector<double> weights;
  if (auto path = pair_host_rail(remote)) {
    // A peer on this host: shared memory alone. Striping it over loopback
    // TCP too would only slow it down.
    paths.push_back(*path);
    weights.push_back(1.0);
  } else {
    paths = pair_network_rails(remote, weights);
  }
  if (paths.empty()) {
    std::string ours;
    std::string theirs;
    for (std::size_t r = 0; r < rails.size(); ++r) {
      ours += fmt::format("{}{} ({})", ours.empty() ? "" : ", ", rails[r].network,
                          rails[r].rail->limits().provider);
    }
    for (const auto& rail : remote.rails) {
      theirs += fmt::format("{}{} ({})", theirs.empty() ? "" : ", ", rail.network, rail.provider);
    }
    throw Error(
        fmt::format("peer {:016x} shares no network with this endpoint: ours are {}; "
                    "theirs are {}",
                    remote.id, ours, theirs));
  }
  std::size_t home = 0;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    if (paths[p].local_rail == rails.home_rail()) {
      home = p;
    }
  }
  const bool same_host = rails[paths.front().local_rail].host_only;
  const PeerId id{static_cast<std::uint32_t>(peers_.size())};
  std::string route;
  for (const auto& path : paths) {
    route += fmt::format("{}{}->{}", route.empty() ? "" : ", ", path.local_rail, path.remote_rail);
  }
  log::info("peer {} = endpoint {:016x}: {} {} (our rail->its rail) {}; home path {}", id.index,
            remote.id, paths.size(), same_host ? "same-host path" : "paths", route, home);
  if (!same_host && options.pull_chunk != 0) {
    // Chunked reads keep each connection free for the other direction's
    // traffic (Options::pull_chunk); the host rail's reads hold none.
    constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t window = options.pull_chunk > kUnbounded / options.pull_depth
                                     ? kUnbounded
                                     : options.pull_chunk * options.pull_depth;
    for (Path& path : paths) {
      path.pull_chunk = options.pull_chunk;
      path.pull_window = window;
    }
  }
  const std::uint64_t min_chunk = options.min_chunk;
  peers_.push_back(std::make_unique<Peer>(
      id, remote.id, std::move(paths), home,
      StripePlan(std::move(weights), min_chunk, std::min<std::uint64_t>(128, min_chunk)),
      std::min(options.fragment_size, remote.max_fragment), std::min(options.window, remote.window),
      options.window));
  Peer& peer = *peers_.back();
  peer.eager_limit =
      same_host && options.host_rail ? options.host_rail->eager_limit : options.eager_limit;
  peer.path_of_rail.assign(rails.size(), Peer::kNoPath);
  std::vector<std::size_t> used_rails;
  for (std::size_t p = 0; p < peer.paths.size(); ++p) {
    peer.path_of_rail[peer.paths[p].local_rail] = p;
    used_rails.push_back(peer.paths[p].local_rail);
  }
  // Failover needs a path to fail over to (docs/architecture.md); a dead
  // peer is found over one path too.
  peer.watched = !same_host && options.rail_timeout.count() != 0;
  peer.guarded = peer.watched && peer.paths.size() > 1;
  ids_.emplace(remote.id, id);
  rails.mark_peerless(used_rails);

  // Messages that arrived before we knew the peer.
  if (auto stashed = strangers_.find(remote.id); stashed != strangers_.end()) {
    auto messages = std::move(stashed->second);
    strangers_.erase(stashed);
    for (auto& [rail, bytes] : messages) {
      stranger_bytes_ -= bytes.size();
      core_.receiver.handle(rail, bytes);
    }
  }
  return id;
}

std::vector<Path> PeerTable::pair_network_rails(const EndpointAddress& remote,
                                                std::vector<double>& weights) {
  // Among several candidates, the k-th of our rails that has any takes the
  // k-th candidate, so equal layouts pair rail i with rail i.
  RailSet& rails = core_.rails;
  std::vector<Path> paths;
  std::size_t with_candidates = 0;
  for (std::size_t local = 0; local < rails.network_rails(); ++local) {
    const RailState& state = rails[local];
    std::vector<std::size_t> candidates;
    for (std::size_t r = 0; r < remote.rails.size(); ++r) {
      if (remote.rails[r].provider == state.rail->limits().provider &&
          remote.rails[r].network == state.network) {
        candidates.push_back(r);
      }
    }
    if (candidates.empty()) {
      log::info("peer {:016x}: our rail {} ({} on {}) has no peer rail on its network", remote.id,
                local, state.rail->name(), state.network);
      continue;
    }
    const std::size_t chosen = candidates[with_candidates++ % candidates.size()];
    paths.emplace_back(local, chosen, state.rail->insert_peer(remote.rails[chosen].address));
    weights.push_back(rails.weight_of(local));
  }
  return paths;
}

std::optional<Path> PeerTable::pair_host_rail(const EndpointAddress& remote) {
  const auto host_rail = core_.rails.host_rail();
  if (!host_rail) {
    return std::nullopt;
  }
  const RailState& state = core_.rails[*host_rail];
  const HostRailOptions& host = *core_.options.host_rail;
  for (std::size_t r = 0; r < remote.rails.size(); ++r) {
    if (remote.rails[r].provider != state.rail->limits().provider ||
        remote.rails[r].network != state.network) {
      continue;
    }
    try {
      Path path{*host_rail, r, state.rail->insert_peer(remote.rails[r].address)};
      if (state.region_guard) {
        // The provider maps the peer's region as the peer is inserted.
        (void)shm::prefault_region(
            shm::region_path(state.rail->address_name(remote.rails[r].address)),
            host.prefault_bytes);
      }
      return path;
    } catch (const Error& error) {
      if (host.required) {
        throw Error(
            fmt::format("peer {:016x} on this host cannot be reached over the same-host "
                        "rail ({}): {}",
                        remote.id, state.rail->name(), error.what()));
      }
      log::warn(
          "peer {:016x} on this host cannot be reached over the same-host rail ({}): {}; "
          "using the network rails",
          remote.id, state.rail->name(), error.what());
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Status PeerTable::check(PeerId id, const char* what) const {
  const Peer* peer = find(id);
  if (peer == nullptr) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{}: peer {} was never inserted ({} peers known)", what, id.index,
                        peers_.size())};
  }
  if (peer->failed) {
    return peer->failure;
  }
  return {};
}

Peer* PeerTable::find_source(std::size_t rail, const Header& header,
                             std::span<const std::byte> message) {
  if (const auto known = ids_.find(header.source); known != ids_.end()) {
    last_source_ = peers_[known->second.index].get();
    return last_source_;
  }
  // Its address has not been inserted yet: keep the message for then.
  if (stranger_bytes_ + message.size() > kMaxStrangerBytes) {
    core_.drop(rail, fmt::format("endpoint {:016x} was never inserted and {} bytes from unknown "
                                 "endpoints are already held",
                                 header.source, stranger_bytes_));
    return nullptr;
  }
  stranger_bytes_ += message.size();
  strangers_[header.source].emplace_back(rail,
                                         std::vector<std::byte>(message.begin(), message.end()));
  return nullptr;
}

void PeerTable::fail(Peer& peer, const Status& status) {
  if (peer.failed) {
    return;
  }
  peer.failed = true;
  peer.failure = Status(status.code(),
                        fmt::format("peer {} is unreachable: {}", peer.id.index, status.message()),
                        status.fi_errno());
  last_failure_ = Status(StatusCode::kUnreachable,
                         fmt::format("every peer of this endpoint is unreachable (the last, peer "
                                     "{}: {})",
                                     peer.id.index, status.message()),
                         status.fi_errno());
  log::error("multi-rail endpoint {:016x}: {}", core_.id, peer.failure.message());
  // Its messages still queued, on our side and in the rails' deferred
  // posts, would hold up other peers' traffic: they go now. Their requests
  // are told once the rest is consistent.
  std::vector<Request*> unsent = core_.sender.drop_queued(peer);
  core_.lanes.end_waiting(peer);
  core_.sender.fail_waiting(peer);
  core_.rendezvous.fail_sends_to(peer);
  core_.receiver.fail_from(peer);
  for (Request* request : unsent) {
    core_.lanes.piece_done(*request, peer.failure);
  }
  core_.credits.release();  // budget its stalled messages held
  core_.receiver.fail_orphaned_wildcards();
}

const Status* PeerTable::every_peer_failed() const noexcept {
  if (peers_.empty()) {
    return nullptr;  // no peer yet: one inserted later may send
  }
  for (const auto& peer : peers_) {
    if (!peer->failed) {
      return nullptr;
    }
  }
  return &last_failure_;
}

}  // namespace railyard::mrail::detail
