// Rail resets in a multi-rail endpoint: ending the reads a dead path holds by
// closing and reopening its rail, and telling the peers whose connections
// that broke (docs/architecture.md, "Rail failover").
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/mrail/detail/endpoint_internal.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {

void Endpoint::schedule_reset(std::size_t rail, std::string reason, bool required) {
  RailState& state = *rails_[rail];
  if (!state.reset_due) {
    state.reset_due = std::move(reason);
    resets_due_ = true;
  }
  state.reset_required = state.reset_required || required;
}

void Endpoint::reset_rails() {
  resets_due_ = false;
  for (std::size_t rail = 0; rail < rails_.size(); ++rail) {
    if (!rails_[rail]->reset_due) {
      continue;
    }
    const std::string reason = std::move(*rails_[rail]->reset_due);
    reset_rail(rail, reason, rails_[rail]->reset_required);
    // Paths it took down may have asked for the same reset again: done.
    rails_[rail]->reset_due.reset();
    rails_[rail]->reset_required = false;
  }
}

void Endpoint::reset_rail(std::size_t rail, const std::string& reason, bool required) {
  // Still needed? The reads may have ended since (a provider error ends
  // them when a connection dies; a link that came back lets them finish).
  bool stuck = required;
  for (const auto& peer : peers_) {
    if (const std::size_t p = peer->path_on(rail); p != Peer::kNoPath) {
      const Path& path = peer->paths[p];
      stuck = stuck || (!path.up && path.pull_bytes_in_flight != 0);
    }
  }
  if (!stuck) {
    return;
  }
  // Every peer with a path on the rail loses what that path carries: each
  // must be able to go on over another.
  for (const auto& peer : peers_) {
    const std::size_t p = peer->path_on(rail);
    if (peer->failed || p == Peer::kNoPath || !peer->paths[p].up) {
      continue;
    }
    if (!peer->guarded || peer->live.size() < 2) {
      log::warn(
          "multi-rail endpoint {:016x}: rail {} {} is not reset although {}: peer {} has no "
          "other path to go on over; the reads end when the provider gives them up",
          id_, rail, rails_[rail]->rail->name(), reason, peer->id.index);
      return;
    }
  }
  const std::string why = fmt::format("rail {} reset: {}", rail, reason);
  for (const auto& peer : peers_) {
    const std::size_t p = peer->path_on(rail);
    if (!peer->failed && p != Peer::kNoPath && peer->paths[p].up) {
      path_down(*peer, p, why);
    }
  }
  // The peers to which writes were in flight over the rail, before the
  // reset ends them.
  std::vector<bool> wrote(peers_.size(), false);
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    const std::size_t p = peers_[i]->path_on(rail);
    wrote[i] = p != Peer::kNoPath && peers_[i]->paths[p].write_bytes_in_flight != 0;
  }
  // (Idle work runs between the rails' progress calls, never inside one.)
  const Status reset = rails_[rail]->rail->reset(reason);
  if (!reset.ok()) {
    log::error("multi-rail endpoint {:016x}: the reads wait for the provider: {}", id_,
               reset.message());
    return;
  }
  log::warn(
      "multi-rail endpoint {:016x}: rail {} {} was closed and reopened at its address to end "
      "reads and writes a dead path held ({}); they go again over the paths left",
      id_, rail, rails_[rail]->rail->name(), reason);
  // Its peers learn over a path that stayed up: their own path to the rail
  // lost what was on its way, which they resend once it is down.
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    Peer* const peer = peers_[i].get();
    const std::size_t p = peer->path_on(rail);
    if (peer->failed || p == Peer::kNoPath || peer->live.empty()) {
      continue;
    }
    // Numbered on the path it takes: should that path fail before the peer
    // has it, it goes again over another (a lost notice with the writes
    // flag would leave the stale writes' way open).
    if (++reset_notices_sent_ == 0) {
      ++reset_notices_sent_;
    }
    Header notice;
    notice.type = MessageType::kRailReset;
    notice.flags = wrote[i] ? kFlagWritesInFlight : 0;
    notice.source = id_;
    notice.word =
        RailResetNotice{static_cast<std::uint8_t>(rail), peer->paths[p].epoch, reset_notices_sent_}
            .word();
    send_control(*peer, notice);
  }
}

void Endpoint::on_rail_reset(Peer& peer, const Header& header, std::size_t rail) {
  const RailResetNotice notice = RailResetNotice::of(header.word);
  const bool known = std::any_of(peer.paths.begin(), peer.paths.end(),
                                 [&](const Path& path) { return path.remote_rail == notice.rail; });
  if (!known) {
    drop(rail, fmt::format("rail reset notice from peer {} names its rail {}, which has no path "
                           "from us",
                           peer.id.index, notice.rail));
    return;
  }
  // A copy of a notice acted on already (resent after the path it first
  // took failed), or one older than it, arriving late.
  if (peer.resets_heard.size() <= notice.rail) {
    peer.resets_heard.resize(notice.rail + std::size_t{1}, 0);
  }
  std::uint32_t& heard = peer.resets_heard[notice.rail];
  if (heard != 0 && !seq_before(heard, notice.number)) {
    ++totals_.duplicates_dropped;
    return;
  }
  heard = notice.number;
  // A notice from an earlier life of its path (it has sent over the path
  // in a newer epoch since) is old news.
  if (notice.rail < peer.inbound.size()) {
    const InboundPath& inbound = peer.inbound[notice.rail];
    if (inbound.seen && static_cast<std::uint8_t>(notice.epoch - inbound.epoch) >= 128) {
      return;
    }
  }
  for (std::size_t p = 0; p < peer.paths.size() && !peer.failed; ++p) {
    if (peer.paths[p].remote_rail != notice.rail) {
      continue;
    }
    path_down(peer, p,
              fmt::format("peer {} reset its rail {}, which broke the path's connection",
                          peer.id.index, notice.rail));
    if ((header.flags & kFlagWritesInFlight) != 0) {
      // Its writes' packets still on the way would land through our end of
      // the broken connection, after the writes completed over other paths:
      // that end goes too, and they meet a connection reset instead.
      schedule_reset(peer.paths[p].local_rail,
                     fmt::format("peer {} reset its rail {} with writes to us in flight over it",
                                 peer.id.index, notice.rail),
                     true);
    }
  }
}

}  // namespace railyard::mrail
