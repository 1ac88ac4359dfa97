#include "railyard/mrail/detail/rail_resets.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {

void RailResets::schedule(std::size_t rail, std::string reason, bool required) {
  RailState& state = core_.rails[rail];
  if (!state.reset_due) {
    state.reset_due = std::move(reason);
    due_ = true;
  }
  state.reset_required = state.reset_required || required;
}

void RailResets::run() {
  due_ = false;
  for (std::size_t rail = 0; rail < core_.rails.size(); ++rail) {
    if (!core_.rails[rail].reset_due) {
      continue;
    }
    const std::string reason = std::move(*core_.rails[rail].reset_due);
    reset(rail, reason, core_.rails[rail].reset_required);
    // Paths it took down may have asked for the same reset again: done.
    core_.rails[rail].reset_due.reset();
    core_.rails[rail].reset_required = false;
  }
}

void RailResets::reset(std::size_t rail, const std::string& reason, bool required) {
  // Still needed? The reads may have ended since (a provider error ends
  // them when a connection dies; a link that came back lets them finish).
  bool stuck = required;
  for (const auto& peer : core_.peers.all()) {
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
  for (const auto& peer : core_.peers.all()) {
    const std::size_t p = peer->path_on(rail);
    if (peer->failed || p == Peer::kNoPath || !peer->paths[p].up) {
      continue;
    }
    if (!peer->guarded || peer->live.size() < 2) {
      log::warn(
          "multi-rail endpoint {:016x}: rail {} {} is not reset although {}: peer {} has no "
          "other path to go on over; the reads end when the provider gives them up",
          core_.id, rail, core_.rails[rail].rail->name(), reason, peer->id.index);
      return;
    }
  }
  const std::string why = fmt::format("rail {} reset: {}", rail, reason);
  for (const auto& peer : core_.peers.all()) {
    const std::size_t p = peer->path_on(rail);
    if (!peer->failed && p != Peer::kNoPath && peer->paths[p].up) {
      core_.paths.path_down(*peer, p, why);
    }
  }
  // The peers to which writes were in flight over the rail, before the
  // reset ends them.
  const auto& peers = core_.peers.all();
  std::vector<bool> wrote(peers.size(), false);
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const std::size_t p = peers[i]->path_on(rail);
    wrote[i] = p != Peer::kNoPath && peers[i]->paths[p].write_bytes_in_flight != 0;
  }
  // (Idle work runs between the rails' progress calls, never inside one.)
  const Status reset = core_.rails[rail].rail->reset(reason);
  if (!reset.ok()) {
    log::error("multi-rail endpoint {:016x}: the reads wait for the provider: {}", core_.id,
               reset.message());
    return;
  }
  log::warn(
      "multi-rail endpoint {:016x}: rail {} {} was closed and reopened at its address to end "
      "reads and writes a dead path held ({}); they go again over the paths left",
      core_.id, rail, core_.rails[rail].rail->name(), reason);
  // Its peers learn over a path that stayed up: their own path to the rail
  // lost what was on its way, which they resend once it is down.
  for (std::size_t i = 0; i < peers.size(); ++i) {
    Peer* const peer = peers[i].get();
    const std::size_t p = peer->path_on(rail);
    if (peer->failed || p == Peer::kNoPath || peer->live.empty()) {
      continue;
    }
    // Numbered on the path it takes: should that path fail before the peer
    // has it, it goes again over another (a lost notice with the writes
    // flag would leave the stale writes' way open).
    if (++notices_sent_ == 0) {
      ++notices_sent_;
    }
    Header notice;
    notice.type = MessageType::kRailReset;
    notice.flags = wrote[i] ? kFlagWritesInFlight : 0;
    notice.source = core_.id;
    notice.word =
        RailResetNotice{static_cast<std::uint8_t>(rail), peer->paths[p].epoch, notices_sent_}
            .word();
    core_.sender.send_control(*peer, notice);
  }
}

void RailResets::on_notice(Peer& peer, const Header& header, std::size_t rail) {
  const RailResetNotice notice = RailResetNotice::of(header.word);
  const bool known = std::any_of(peer.paths.begin(), peer.paths.end(),
                                 [&](const Path& path) { return path.remote_rail == notice.rail; });
  if (!known) {
    core_.drop(rail,
               fmt::format("rail reset notice from peer {} names its rail {}, which has no path "
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
    ++core_.totals.duplicates_dropped;
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
    core_.paths.path_down(
        peer, p,
        fmt::format("peer {} reset its rail {}, which broke the path's connection", peer.id.index,
                    notice.rail));
    if ((header.flags & kFlagWritesInFlight) != 0) {
      // Its writes' packets still on the way would land through our end of
      // the broken connection, after the writes completed over other paths:
      // that end goes too, and they meet a connection reset instead.
      schedule(peer.paths[p].local_rail,
               fmt::format("peer {} reset its rail {} with writes to us in flight over it",
                           peer.id.index, notice.rail),
               true);
    }
  }
}

}  // namespace railyard::mrail::detail
