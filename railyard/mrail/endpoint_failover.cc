// Rail failover in a multi-rail endpoint: numbering the messages put on each
// path to a peer and keeping them until the peer acknowledges them, and when
// a path fails, carrying what it held over the peer's other paths
// (docs/architecture.md, "Rail failover").
#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/mrail/detail/endpoint_internal.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {
namespace {

// A receiver owes an acknowledgement for every numbered message; one rides
// on each message back to the sender. Without traffic back, it sends one
// on its own after this many messages on a path, once the last is handled
// (often enough that a sender keeps little, rarely enough to cost nothing
// measurable), and at once after kAckNow.
constexpr std::uint32_t kAckEvery = 16;
constexpr std::uint32_t kAckNow = 64;

// The rare paths of the per-message code below, out of line so that the
// common case runs in functions that save few registers.
[[gnu::cold, gnu::noinline]] void grow_inbound(Peer& peer, std::uint8_t path_rail) {
  peer.inbound.resize(path_rail + std::size_t{1});
}

[[gnu::cold, gnu::noinline]] std::string ack_without_path(const Peer& peer,
                                                          std::uint8_t path_rail) {
  return fmt::format("acknowledgement from peer {} names our rail {}, which has no path to it",
                     peer.id.index, path_rail);
}

[[gnu::cold, gnu::noinline]] std::string ack_beyond_sent(const Peer& peer, std::uint32_t acked,
                                                         std::uint8_t path_rail,
                                                         std::uint32_t sent) {
  return fmt::format(
      "acknowledgement from peer {} of message {} on our rail {} is beyond the {} sent there",
      peer.id.index, acked, path_rail, sent);
}

}  // namespace

std::uint32_t Endpoint::next_path_seq(std::uint32_t& sent) noexcept {
  if (++sent == 0) {
    ++sent;  // 0 marks a message as unnumbered
  }
  return sent;
}

void Endpoint::note_arrival(Peer& peer, const Header& header, std::size_t rail) {
  if (peer.inbound.size() <= header.path_rail) [[unlikely]] {
    grow_inbound(peer, header.path_rail);
  }
  InboundPath& inbound = peer.inbound[header.path_rail];
  if (!inbound.seen || header.path_epoch != inbound.epoch) {
    if (inbound.seen && static_cast<std::uint8_t>(header.path_epoch - inbound.epoch) >= 128) {
      return;  // from an earlier life of the path, arriving late
    }
    inbound = InboundPath{true, header.path_epoch, 0, 0};
  }
  std::uint32_t expected = inbound.received + 1;
  if (expected == 0) {
    expected = 1;
  }
  // Anything else repeats a message (or skips one, which a connection that
  // delivers in order never does): the acknowledgement stays where it is.
  if (header.path_seq != expected) {
    return;
  }
  inbound.received = header.path_seq;
  inbound.arrival_rail = rail;
  if (++inbound.unacked >= kAckNow) {
    send_ack(peer, header.path_rail);
  } else if (inbound.unacked >= kAckEvery) {
    acks_due_ = true;
  }
}

void Endpoint::send_ack(Peer& peer, std::uint8_t sender_rail) {
  InboundPath& inbound = peer.inbound[sender_rail];
  inbound.unacked = 0;
  Header ack;
  ack.type = MessageType::kAck;
  ack.source = id_;
  ack.path_rail = sender_rail;
  ack.path_epoch = inbound.epoch;
  ack.path_seq = inbound.received;
  ++totals_.acks_sent;
  send_control(peer, ack, reply_path(peer, inbound.arrival_rail));
}

void Endpoint::attach_ack(Peer& peer, Header& header) noexcept {
  if (header.ack_seq != 0) {
    return;  // the message carries one already (a probe's answer)
  }
  header.ack_rail = 0;
  header.ack_epoch = 0;
  const std::size_t count = peer.inbound.size();
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t index = peer.ack_cursor + i;
    if (index >= count) {
      index -= count;
    }
    InboundPath& inbound = peer.inbound[index];
    if (inbound.unacked != 0) {
      header.ack_seq = inbound.received;
      header.ack_rail = static_cast<std::uint8_t>(index);
      header.ack_epoch = inbound.epoch;
      inbound.unacked = 0;
      peer.ack_cursor = index + 1 == count ? 0 : index + 1;
      return;
    }
  }
}

void Endpoint::flush_acks() {
  acks_due_ = false;
  for (const auto& peer : peers_) {
    if (peer->failed) {
      continue;
    }
    for (std::size_t i = 0; i < peer->inbound.size(); ++i) {
      if (peer->inbound[i].unacked >= kAckEvery) {
        send_ack(*peer, static_cast<std::uint8_t>(i));
      }
    }
  }
}

std::size_t Endpoint::reply_path(const Peer& peer, std::size_t arrival_rail) noexcept {
  // Back the way the message came while that path is up, else any path up.
  const std::size_t path = peer.path_on(arrival_rail);
  return path != Peer::kNoPath && peer.paths[path].up ? path : peer.home();
}

bool Endpoint::take_ack(Peer& peer, std::uint8_t path_rail, std::uint8_t epoch, std::uint32_t acked,
                        std::size_t rail) {
  const std::size_t index = peer.path_on(path_rail);
  if (index == Peer::kNoPath) [[unlikely]] {
    drop(rail, ack_without_path(peer, path_rail));
    return false;
  }
  Path& path = peer.paths[index];
  if (epoch != path.epoch) {
    return true;  // for an earlier life of the path: what it kept was resent
  }
  if (seq_before(path.sent, acked)) [[unlikely]] {
    drop(rail, ack_beyond_sent(peer, acked, path_rail, path.sent));
    return false;
  }
  path.unacked.release_through(acked);
  return true;
}

void Endpoint::note_activity(Peer& peer, std::size_t rail) noexcept {
  if (const std::size_t path = peer.path_on(rail); path != Peer::kNoPath) {
    ++peer.paths[path].activity;
  }
}

void Endpoint::check_paths() {
  if (options_.rail_timeout.count() == 0) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now < next_path_check_) {
    return;
  }
  const auto interval = options_.rail_timeout / 8;
  // A round that comes long after the last (nothing progressed the
  // endpoint meanwhile) saw nothing of that time: it judges from now on.
  const bool fresh_start = now - next_path_check_ > options_.rail_timeout / 2;
  next_path_check_ = now + interval;
  // Peers with a rendezvous send out: its FIN comes only when the peer has
  // read the data, however long it takes to post the receive, so the send
  // counts as work pending on every path, and a probe must be answered
  // while it waits (a dead peer answers none).
  std::vector<bool> awaited(peers_.size(), false);
  for (const auto& [transfer, request] : rendezvous_sends_) {
    if (request->peer().index < awaited.size()) {
      awaited[request->peer().index] = true;
    }
  }
  for (const auto& owned : peers_) {
    Peer& peer = *owned;
    if (!peer.watched || peer.failed) {
      continue;
    }
    for (std::size_t p = 0; p < peer.paths.size() && !peer.failed; ++p) {
      Path& path = peer.paths[p];
      if (!path.up) {
        if (now >= path.next_retry) {
          path.next_retry = now + options_.rail_retry;
          log::debug(
              "multi-rail endpoint {:016x}: probing path {} to peer {}, down, to bring it "
              "back ({} messages queued on its rail, {} send buffers free)",
              id_, p, peer.id.index, rails_[path.local_rail]->queue.size(),
              rails_[path.local_rail]->free_slots.size());
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
      if (quiet >= options_.rail_timeout) {
        path_down(
            peer, p,
            fmt::format("nothing from the peer over it for {} ms with {} messages and {} "
                        "bytes of reads or writes outstanding{}, and no answer to a probe",
                        std::chrono::duration_cast<std::chrono::milliseconds>(quiet).count(),
                        path.unacked.size(), path.pull_bytes_in_flight,
                        awaited[peer.id.index] ? ", a large send waiting for it to read" : ""));
      } else if (quiet >= options_.rail_timeout / 2 && !path.probe_outstanding) {
        path.probe_outstanding = true;
        log::debug(
            "multi-rail endpoint {:016x}: probing path {} to peer {}: quiet for {} ms with "
            "{} messages outstanding",
            id_, p, peer.id.index,
            std::chrono::duration_cast<std::chrono::milliseconds>(quiet).count(),
            path.unacked.size());
        send_probe(peer, p);
      }
    }
  }
}

void Endpoint::send_probe(Peer& peer, std::size_t index) {
  Path& path = peer.paths[index];
  ++path.health.probes;
  Header probe;
  probe.type = MessageType::kProbe;
  probe.source = id_;
  probe.path_rail = static_cast<std::uint8_t>(path.local_rail);
  probe.path_epoch = path.epoch;
  probe.word = ++probe_nonce_;
  send_control(peer, probe, index);
}

void Endpoint::path_up(Peer& peer, std::size_t index) {
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
  set_live_paths(peer, std::move(up));
  log::warn(
      "multi-rail endpoint {:016x}: path {} to peer {} (our rail {} {} -> its rail {}) is "
      "back in service (down since: {}); {} path(s) up",
      id_, index, peer.id.index, path.local_rail, rails_[path.local_rail]->rail->name(),
      path.remote_rail, path.down_reason, peer.live.size());
}

void Endpoint::on_probe_reply(Peer& peer, const Header& header) {
  // The reply may come back over another path: it vouches for the one probed.
  if (const std::size_t index = peer.path_on(header.path_rail); index != Peer::kNoPath) {
    Path& path = peer.paths[index];
    log::debug("multi-rail endpoint {:016x}: peer {} answered the probe of our rail {}", id_,
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

void Endpoint::on_probe(Peer& peer, const Header& header, std::size_t rail) {
  log::debug("multi-rail endpoint {:016x}: peer {} probes its rail {} (arrived on our rail {})",
             id_, peer.id.index, header.path_rail, rail);
  Header reply;
  reply.type = MessageType::kProbeReply;
  reply.source = id_;
  reply.path_rail = header.path_rail;
  reply.path_epoch = header.path_epoch;
  reply.word = header.word;
  // The answer acknowledges what came over the probed path: a prober that
  // is closing waits for that (Endpoint::linger).
  if (header.path_rail < peer.inbound.size()) {
    InboundPath& inbound = peer.inbound[header.path_rail];
    if (inbound.seen && inbound.unacked != 0) {
      reply.ack_seq = inbound.received;
      reply.ack_rail = header.path_rail;
      reply.ack_epoch = inbound.epoch;
      inbound.unacked = 0;
    }
  }
  send_control(peer, reply, reply_path(peer, rail));
}

void Endpoint::linger() noexcept {
  if (options_.rail_timeout.count() == 0) {
    return;
  }
  const auto unacknowledged = [this] {
    for (const auto& peer : peers_) {
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
  };
  try {
    {
      const Lock lock(mutex_);
      // What we owe goes first, whatever the count: a peer that closes after
      // us then has nothing to wait for.
      for (const auto& peer : peers_) {
        if (peer->failed) {
          continue;
        }
        for (std::size_t i = 0; i < peer->inbound.size(); ++i) {
          if (peer->inbound[i].unacked != 0) {
            send_ack(*peer, static_cast<std::uint8_t>(i));
          }
        }
      }
      if (!unacknowledged()) {
        return;
      }
      // Asked for at once: a peer owed fewer than 16 would wait for more.
      for (const auto& peer : peers_) {
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
    if (!progress_until([&] { return !unacknowledged(); }, options_.rail_timeout)) {
      log::info(
          "multi-rail endpoint {:016x}: closing with messages its peers have not "
          "acknowledged within {} ms",
          id_, options_.rail_timeout.count());
    }
  } catch (const std::exception& e) {
    log::warn("multi-rail endpoint {:016x}: waiting for acknowledgements before closing: {}", id_,
              e.what());
  }
}

Status Endpoint::take_path_down(PeerId id, std::size_t path, std::string_view reason) {
  const Lock lock(mutex_);
  if (auto status = check_peer(id, "take_path_down"); !status.ok()) {
    return status;
  }
  Peer& peer = *peer_of(id);
  if (path >= peer.paths.size()) {
    return {StatusCode::kInvalidArgument,
            fmt::format("take_path_down: peer {} has {} paths, not {}", id.index, peer.paths.size(),
                        path + 1)};
  }
  if (!peer.guarded) {
    return {StatusCode::kInvalidArgument,
            fmt::format("take_path_down: peer {} has no failover ({} network path(s), "
                        "RAILYARD_RAIL_TIMEOUT {} ms; failover needs two paths and a timeout)",
                        id.index, peer.paths.size(), options_.rail_timeout.count())};
  }
  path_down(peer, path, reason);
  return {};
}

void Endpoint::path_down(Peer& peer, std::size_t index, std::string_view reason) {
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
    fail_peer(peer, Status(StatusCode::kUnreachable,
                           fmt::format("its last path (our rail {} to its rail {}) failed: {}",
                                       path.local_rail, path.remote_rail, reason)));
    return;
  }
  path.up = false;
  ++path.health.downs;
  path.down_reason = reason;
  path.next_retry = std::chrono::steady_clock::now() + options_.rail_retry;
  set_live_paths(peer, std::move(up));
  const std::uint64_t resent_messages = path.unacked.size();
  const std::uint64_t resent_bytes = path.unacked.bytes();
  log::warn(
      "multi-rail endpoint {:016x}: path {} to peer {} (our rail {} {} -> its rail {}) is down: "
      "{}; {} unacknowledged messages ({} bytes) go again over the {} path(s) left",
      id_, index, peer.id.index, path.local_rail, rails_[path.local_rail]->rail->name(),
      path.remote_rail, reason, resent_messages, resent_bytes, peer.live.size());

  // Posts the provider deferred stop holding up the rail's other peers;
  // their messages were kept, and go again below.
  (void)rails_[path.local_rail]->rail->fail_deferred_posts_to(
      path.address, Status(StatusCode::kCanceled, "its path went down"));
  // Sends the provider holds may never complete (a dead link): their
  // messages were kept and go again below, so their requests are done with
  // them now. The buffers stay the provider's until it lets go.
  for (const auto& slot : rails_[path.local_rail]->send_slots) {
    if (slot->in_flight() && slot->peer == peer.id && slot->owner != nullptr) {
      piece_done(*std::exchange(slot->owner, nullptr), Status());
    }
  }

  std::uint64_t touched = 0;  // a bit per rail (at most kMaxRails = 64)
  const auto reroute = [&](Outgoing out) {
    const Path& to = peer.paths[peer.take_next_path()];
    out.destination = to.address;
    rails_[to.local_rail]->queue.push_back(std::move(out));
    touched |= std::uint64_t{1} << to.local_rail;
  };
  // Messages queued for the peer on that rail, not sent yet. Probes and
  // their answers are about the path they travel: sent over another, they
  // would vouch for it falsely; they are dropped.
  auto& queue = rails_[path.local_rail]->queue;
  std::deque<Outgoing> stay;
  for (auto& out : queue) {
    if (out.peer != peer.id) {
      stay.push_back(std::move(out));
    } else if (out.header.type != MessageType::kProbe &&
               out.header.type != MessageType::kProbeReply) {
      reroute(std::move(out));
    }
  }
  queue = std::move(stay);
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
  rescue_pulls(peer, path);
  if (path.pull_bytes_in_flight != 0) {
    schedule_reset(path.local_rail,
                   fmt::format("{} bytes of reads or writes with peer {} were posted on its path "
                               "{} when it went down ({})",
                               path.pull_bytes_in_flight, peer.id.index, index, reason));
  }
  for (std::size_t rail = 0; touched != 0; ++rail, touched >>= 1U) {
    if ((touched & 1U) != 0) {
      pump(rail);
    }
  }
}

void Endpoint::set_live_paths(Peer& peer, std::vector<std::size_t> up) {
  std::optional<StripePlan> degraded;
  if (up.size() != peer.paths.size()) {
    std::vector<double> weights;
    weights.reserve(up.size());
    for (const std::size_t p : up) {
      weights.push_back(weight_of(peer.paths[p].local_rail));
    }
    degraded.emplace(std::move(weights), options_.min_chunk,
                     std::min<std::uint64_t>(128, options_.min_chunk));
  }
  peer.set_live(std::move(up), std::move(degraded));
}

void Endpoint::rescue_pulls(Peer& peer, Path& dead) {
  // Shares waiting to be read over the dead path: over the others instead.
  // (Chunks already posted there finish or fail on their own; a failed one
  // is read again, see reread().)
  std::vector<Request*> requests;
  for (const PullTurn& turn : dead.waiting_pulls) {
    if (std::find(requests.begin(), requests.end(), turn.request) == requests.end()) {
      requests.push_back(turn.request);
    }
  }
  dead.waiting_pulls.clear();
  for (Request* request : requests) {
    LargeTransfer& transfer = *request->large_;
    // By index, up to the lanes it has now: spread_pull adds lanes (on the
    // paths left), which may move the vector.
    const std::size_t lanes = transfer.lanes.size();
    for (std::size_t l = 0; l < lanes; ++l) {
      LargeTransfer::PullLane& lane = transfer.lanes[l];
      if (lane.path != dead.index || lane.next == lane.end) {
        continue;
      }
      const std::uint64_t begin = lane.next;
      const std::uint64_t end = lane.end;
      request->pending_ -= static_cast<std::uint32_t>(lane.chunks_left());
      lane.end = lane.next;
      dead.health.pull_bytes_moved += end - begin;
      if (!spread_pull(peer, *request, begin, end)) {
        end_pull(*request, request->status());
        break;
      }
    }
  }
}

bool Endpoint::reread(Path& dead, Request& request, std::uint64_t offset, std::uint64_t length) {
  Peer* peer = peer_of(request.large_->peer);
  if (peer == nullptr || peer->failed) {
    return false;
  }
  dead.health.pull_bytes_moved += length;
  return spread_pull(*peer, request, offset, offset + length);
}

bool Endpoint::spread_pull(Peer& peer, Request& request, std::uint64_t begin, std::uint64_t end) {
  std::vector<StripePiece> pieces;
  peer.split(end - begin, pieces);
  std::vector<std::size_t> paths;
  for (const auto& piece : pieces) {
    const std::size_t lane = request.large_->lanes.size();
    if (!add_lane(peer, request, piece.path, begin + piece.offset,
                  begin + piece.offset + piece.length)) {
      return false;
    }
    peer.paths[piece.path].waiting_pulls.push_back(PullTurn{&request, lane});
    paths.push_back(piece.path);
  }
  for (const std::size_t p : paths) {
    pump_pulls(peer.paths[p]);
  }
  return true;
}

}  // namespace railyard::mrail
