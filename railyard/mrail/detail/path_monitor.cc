#include "railyard/mrail/detail/path_monitor.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {
namespace {

long long milliseconds(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(duration).count();
}

}  // namespace

void PathMonitor::check() {
  const Options& options = core_.options;
  if (options.rail_timeout.count() == 0) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) {
    return;
  }
  const auto interval = options.rail_timeout / 8;
  // A round that comes long after the last (nothing progressed the
  // endpoint meanwhile) saw nothing of that time: it judges from now on.
  const bool fresh_start = now - next_check_ > options.rail_timeout / 2;
  next_check_ = now + interval;
  // Peers with a rendezvous send out: its FIN comes only when the peer has
  // read the data, however long it takes to post the receive, so the send
  // counts as work pending on every path, and a probe must be answered
  // while it waits (a dead peer answers none).
  const std::vector<bool> awaited = core_.rendezvous.peers_awaited(core_.peers.all().size());
  for (const auto& owned : core_.peers.all()) {
    Peer& peer = *owned;
    if (!peer.watched || peer.failed) {
      continue;
    }
    if (heard_from(peer, now, fresh_start, awaited[peer.id.index])) {
      continue;
    }
    for (std::size_t p = 0; p < peer.paths.size() && !peer.failed; ++p) {
      Path& path = peer.paths[p];
      if (!path.up) {
        if (now >= path.next_retry) {
          path.next_retry = now + options.rail_retry;
          const RailState& state = core_.rails[path.local_rail];
          log::debug(
              "multi-rail endpoint {:016x}: probing path {} to peer {}, down, to bring it "
              "back ({} messages queued on its rail, {} send buffers free)",
              core_.id, p, peer.id.index, state.queue.size(), state.free_slots.size());
          send_probe(peer, p);
        }
        continue;
      }
      if (path.quiet_since == std::chrono::steady_clock::time_point{}) {
        path.quiet_since = now;  // a path this check has not seen before
      }
      path.unacked.trim();
      const bool pending =
          !path.unacked.empty() || path.pull_bytes_in_flight != 0 || awaited[peer.id.index];
      if (path.activity != path.activity_seen || !pending || fresh_start) {
        path.activity_seen = path.activity;
        path.quiet_since = now;
        path.probe_outstanding = false;
        continue;
      }
      const auto quiet = now - path.quiet_since;
      if (quiet >= options.rail_timeout && now - peer.heard_at >= options.rail_timeout) {
        // Every path silent at once: the peer is paused or slow, not its
        // rails; it fails only past the peer timeout.
        silent_peer(peer, now);
        break;
      }
      if (quiet >= options.rail_timeout) {
        path_down(
            peer, p,
            fmt::format("nothing from the peer over it for {} ms with {} messages and {} "
                        "bytes of reads or writes outstanding{}, and no answer to a probe",
                        milliseconds(quiet), path.unacked.size(), path.pull_bytes_in_flight,
                        awaited[peer.id.index] ? ", a large send waiting for it to read" : ""));
      } else if (quiet >= options.rail_timeout / 2 && !path.probe_outstanding) {
        path.probe_outstanding = true;
        log::debug(
            "multi-rail endpoint {:016x}: probing path {} to peer {}: quiet for {} ms with "
            "{} messages outstanding",
            core_.id, p, peer.id.index, milliseconds(quiet), path.unacked.size());
        send_probe(peer, p);
        // Its other paths up, idle, are asked too: their answers tell a
        // dead path from a peer that is silent on all of them.
        for (std::size_t q = 0; q < peer.paths.size(); ++q) {
          Path& other = peer.paths[q];
          if (q != p && other.up && !other.probe_outstanding && other.unacked.empty() &&
              other.pull_bytes_in_flight == 0) {
            other.probe_outstanding = true;
            send_probe(peer, q);
          }
        }
      }
    }
  }
}

bool PathMonitor::heard_from(Peer& peer, std::chrono::steady_clock::time_point now,
                             bool fresh_start, bool awaited) {
  bool heard = fresh_start || peer.heard_at == std::chrono::steady_clock::time_point{};
  bool pending = awaited;
  for (const Path& path : peer.paths) {
    heard = heard || (path.up && path.activity != path.activity_seen);
    pending = pending || (path.up && (!path.unacked.empty() || path.pull_bytes_in_flight != 0));
  }
  // Nothing owed by it: silence says nothing.
  if (heard || !pending) {
    peer.heard_at = now;
  }
  if (!peer.paused || !heard) {
    return false;
  }
  // It answers again: each path judged afresh from now, so that the one
  // heard last is not taken down for the silence they shared.
  peer.paused = false;
  log::warn("multi-rail endpoint {:016x}: peer {} answers again; its {} path(s) stay in service",
            core_.id, peer.id.index, peer.live.size());
  for (Path& path : peer.paths) {
    path.activity_seen = path.activity;
    path.quiet_since = now;
    path.probe_outstanding = false;
  }
  return true;
}

void PathMonitor::silent_peer(Peer& peer, std::chrono::steady_clock::time_point now) {
  const Options& options = core_.options;
  const auto silent = now - peer.heard_at;
  if (options.peer_timeout.count() != 0 && silent >= options.peer_timeout) {
    core_.peers.fail(
        peer,
        Status(StatusCode::kUnreachable,
               fmt::format("it answered on none of its {} path(s) for {} ms with work "
                           "pending, past the peer timeout of {} ms (RAILYARD_TIMEOUT)",
                           peer.paths.size(), milliseconds(silent), options.peer_timeout.count())));
    return;
  }
  if (!peer.paused) {
    peer.paused = true;
    log::warn(
        "multi-rail endpoint {:016x}: peer {} has answered on none of its {} path(s) for {} ms: "
        "taken as paused or slow, not as failed rails; waiting for it{}",
        core_.id, peer.id.index, peer.paths.size(), milliseconds(silent),
        options.peer_timeout.count() != 0
            ? fmt::format(" up to {} ms (RAILYARD_TIMEOUT)", options.peer_timeout.count())
            : std::string(" (no peer timeout: the operations' own timeouts apply)"));
  }
}

void PathMonitor::send_probe(Peer& peer, std::size_t index) {
  Path& path = peer.paths[index];
  ++path.health.probes;
  Header probe;
  probe.type = MessageType::kProbe;
  probe.source = core_.id;
  probe.path_rail = static_cast<std::uint8_t>(path.local_rail);
  probe.path_epoch = path.epoch;
  probe.word = ++probe_nonce_;
  core_.sender.send_control(peer, probe, index);
}

void PathMonitor::path_up(Peer& peer, std::size_t index) {
  Path& path = peer.paths[index];
  path.up = true;
  ++path.health.ups;
  // A new life: numbering starts again, and messages of the old one that
  // arrive late are not taken for new ones (Header::path_epoch).
  ++path.epoch;
  path.sent = 0;
  path.activity_seen = path.activity;
  path.quiet_since = std::chrono::steady_clock::now();
  path.probe_outstanding = false;
  std::vector<std::size_t> up;
  for (std::size_t p = 0; p < peer.paths.size(); ++p) {
    if (peer.paths[p].up) {
      up.push_back(p);
    }
  }
  set_live_paths(core_, peer, std::move(up));
  log::warn(
      "multi-rail endpoint {:016x}: path {} to peer {} (our rail {} {} -> its rail {}) is "
      "back in service (down since: {}); {} path(s) up",
      core_.id, index, peer.id.index, path.local_rail, core_.rails[path.local_rail].rail->name(),
      path.remote_rail, path.down_reason, peer.live.size());
}

void PathMonitor::on_probe_reply(Peer& peer, const Header& header) {
  // The reply may come back over another path: it vouches for the one probed.
  if (const std::size_t index = peer.path_on(header.path_rail); index != Peer::kNoPath) {
    Path& path = peer.paths[index];
    log::debug("multi-rail endpoint {:016x}: peer {} answered the probe of our rail {}", core_.id,
               peer.id.index, header.path_rail);
    if (path.epoch != header.path_epoch) {
      return;  // a probe of an earlier life
    }
    if (path.up) {
      ++path.activity;
    } else if (!peer.failed) {
      path_up(peer, index);
    }
  }
}

void PathMonitor::on_probe(Peer& peer, const Header& header, std::size_t rail) {
  log::debug("multi-rail endpoint {:016x}: peer {} probes its rail {} (arrived on our rail {})",
             core_.id, peer.id.index, header.path_rail, rail);
  Header reply;
  reply.type = MessageType::kProbeReply;
  reply.source = core_.id;
  reply.path_rail = header.path_rail;
  reply.path_epoch = header.path_epoch;
  reply.word = header.word;
  // The answer acknowledges what came over the probed path: a prober that
  // is closing waits for that.
  if (header.path_rail < peer.inbound.size()) {
    InboundPath& inbound = peer.inbound[header.path_rail];
    if (inbound.seen && inbound.unacked != 0) {
      reply.ack_seq = inbound.received;
      reply.ack_rail = header.path_rail;
      reply.ack_epoch = inbound.epoch;
      inbound.unacked = 0;
    }
  }
  core_.sender.send_control(peer, reply, FailoverLog::reply_path(peer, rail));
}

bool PathMonitor::unacknowledged() const noexcept {
  for (const auto& peer : core_.peers.all()) {
    if (!peer->guarded || peer->failed) {
      continue;
    }
    for (const Path& path : peer->paths) {
      if (path.up && !path.unacked.empty()) {
        return true;
      }
    }
  }
  return false;
}

void PathMonitor::probe_unacknowledged() {
  for (const auto& peer : core_.peers.all()) {
    if (!peer->guarded || peer->failed) {
      continue;
    }
    for (std::size_t p = 0; p < peer->paths.size(); ++p) {
      if (peer->paths[p].up && !peer->paths[p].unacked.empty()) {
        send_probe(*peer, p);
      }
    }
  }
}

Status PathMonitor::take_down(PeerId id, std::size_t path, std::string_view reason) {
  if (auto status = core_.peers.check(id, "take_path_down"); !status.ok()) {
    return status;
  }
  Peer& peer = *core_.peers.find(id);
  if (path >= peer.paths.size()) {
    return {StatusCode::kInvalidArgument,
            fmt::format("take_path_down: peer {} has {} paths, not {}", id.index, peer.paths.size(),
                        path + 1)};
  }
  if (!peer.guarded) {
    return {StatusCode::kInvalidArgument,
            fmt::format("take_path_down: peer {} has no failover ({} network path(s), "
                        "RAILYARD_RAIL_TIMEOUT {} ms; failover needs two paths and a timeout)",
                        id.index, peer.paths.size(), core_.options.rail_timeout.count())};
  }
  path_down(peer, path, reason);
  return {};
}

void PathMonitor::path_down(Peer& peer, std::size_t index, std::string_view reason) {
  Path& path = peer.paths[index];
  if (!path.up || peer.failed) {
    return;
  }
  std::vector<std::size_t> up;
  for (std::size_t p = 0; p < peer.paths.size(); ++p) {
    if (p != index && peer.paths[p].up) {
      up.push_back(p);
    }
  }
  if (!peer.guarded || up.empty()) {
    core_.peers.fail(peer,
                     Status(StatusCode::kUnreachable,
                            fmt::format("its last path (our rail {} to its rail {}) failed: {}",
                                        path.local_rail, path.remote_rail, reason)));
    return;
  }
  path.up = false;
  ++path.health.downs;
  path.down_reason = reason;
  path.next_retry = std::chrono::steady_clock::now() + core_.options.rail_retry;
  set_live_paths(core_, peer, std::move(up));
  const std::uint64_t resent_messages = path.unacked.size();
  const std::uint64_t resent_bytes = path.unacked.bytes();
  RailState& state = core_.rails[path.local_rail];
  log::warn(
      "multi-rail endpoint {:016x}: path {} to peer {} (our rail {} {} -> its rail {}) is down: "
      "{}; {} unacknowledged messages ({} bytes) go again over the {} path(s) left",
      core_.id, index, peer.id.index, path.local_rail, state.rail->name(), path.remote_rail, reason,
      resent_messages, resent_bytes, peer.live.size());

  // Posts the provider deferred stop holding up the rail's other peers;
  // their messages were kept, and go again below.
  (void)state.rail->fail_deferred_posts_to(path.address,
                                           Status(StatusCode::kCanceled, "its path went down"));
  // Sends the provider holds may never complete (a dead link): their
  // messages were kept and go again below, so their requests are done with
  // them now. The buffers stay the provider's until it lets go.
  for (const auto& slot : state.send_slots) {
    if (slot->in_flight() && slot->peer == peer.id && slot->owner != nullptr) {
      core_.lanes.piece_done(*std::exchange(slot->owner, nullptr), Status());
    }
  }

  std::uint64_t touched = 0;  // a bit per rail (at most kMaxRails = 64)
  const auto reroute = [&](Outgoing out) {
    const Path& to = peer.paths[peer.take_next_path()];
    out.destination = to.address;
    core_.rails[to.local_rail].queue.push_back(std::move(out));
    touched |= std::uint64_t{1} << to.local_rail;
  };
  // Messages queued for the peer on that rail, not sent yet. Probes and
  // their answers are about the path they travel: sent over another, they
  // would vouch for it falsely; they are dropped.
  std::deque<Outgoing> stay;
  for (auto& out : state.queue) {
    if (out.peer != peer.id) {
      stay.push_back(std::move(out));
    } else if (out.header.type != MessageType::kProbe &&
               out.header.type != MessageType::kProbeReply) {
      reroute(std::move(out));
    }
  }
  state.queue = std::move(stay);
  // Messages it carried that the peer has not acknowledged: the peer drops
  // those it had after all.
  path.unacked.for_each([&](const RetainedMessage& kept) {
    Outgoing out;
    std::string error;
    (void)decode_header(kept.bytes, out.header, error);  // encoded here: cannot fail
    out.header.ack_seq = 0;  // its acknowledgement was taken when it first went
    out.peer = peer.id;
    out.body.assign(kept.bytes.begin() + kHeaderSize, kept.bytes.end());
    reroute(std::move(out));
  });
  path.unacked.clear();
  path.health.messages_resent += resent_messages;
  path.health.bytes_resent += resent_bytes;
  core_.lanes.rescue(peer, path);
  if (path.pull_bytes_in_flight != 0) {
    core_.resets.schedule(path.local_rail,
                          fmt::format("{} bytes of reads or writes with peer {} were posted on "
                                      "its path {} when it went down ({})",
                                      path.pull_bytes_in_flight, peer.id.index, index, reason));
  }
  for (std::size_t rail = 0; touched != 0; ++rail, touched >>= 1U) {
    if ((touched & 1U) != 0) {
      core_.sender.pump(rail);
    }
  }
}

void PathMonitor::set_live_paths(Core& core, Peer& peer, std::vector<std::size_t> up) {
  std::optional<StripePlan> degraded;
  if (up.size() != peer.paths.size()) {
    std::vector<double> weights;
    weights.reserve(up.size());
    for (const std::size_t p : up) {
      weights.push_back(core.rails.weight_of(peer.paths[p].local_rail));
    }
    const std::uint64_t min_chunk = core.options.min_chunk;
    degraded.emplace(std::move(weights), min_chunk, std::min<std::uint64_t>(128, min_chunk));
  }
  peer.set_live(std::move(up), std::move(degraded));
}

void PathMonitor::lost_message(PeerId peer_id, std::size_t rail, const Status& status) {
  Peer* peer = core_.peers.find(peer_id);
  if (peer == nullptr) {
    return;
  }
  // With failover, the message was kept and goes again over another path;
  // only the path it took is lost.
  if (const std::size_t path = peer->path_on(rail); peer->guarded && path != Peer::kNoPath) {
    path_down(*peer, path, status.message());
    return;
  }
  core_.peers.fail(*peer, status);
}

bool PathMonitor::covered_by_failover(PeerId peer_id, std::size_t rail) const noexcept {
  const Peer* peer = core_.peers.find(peer_id);
  if (peer == nullptr || !peer->guarded || peer->failed) {
    return false;
  }
  const std::size_t path = peer->path_on(rail);
  return path != Peer::kNoPath && !peer->paths[path].up;
}

void PathMonitor::on_post_failure(std::size_t rail, rail::RailPeer address, const Status& status) {
  for (const auto& peer : core_.peers.all()) {
    const bool on_this_rail = std::any_of(
        peer->paths.begin(), peer->paths.end(),
        [&](const Path& path) { return path.local_rail == rail && path.address == address; });
    if (on_this_rail) {
      lost_message(peer->id, rail, status);
      return;
    }
  }
  log::error("multi-rail endpoint {:016x}, rail {}: a message to an unknown peer was lost: {}",
             core_.id, rail, status.message());
}

}  // namespace railyard::mrail::detail
