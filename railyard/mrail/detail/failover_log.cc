#include "railyard/mrail/detail/failover_log.h"

#include <string>

#include <fmt/format.h>

#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {
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

void FailoverLog::note_arrival(Peer& peer, const Header& header, std::size_t rail) {
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
    due_ = true;
  }
}

void FailoverLog::send_ack(Peer& peer, std::uint8_t sender_rail) {
  InboundPath& inbound = peer.inbound[sender_rail];
  inbound.unacked = 0;
  Header ack;
  ack.type = MessageType::kAck;
  ack.source = core_.id;
  ack.path_rail = sender_rail;
  ack.path_epoch = inbound.epoch;
  ack.path_seq = inbound.received;
  ++core_.totals.acks_sent;
  core_.sender.send_control(peer, ack, reply_path(peer, inbound.arrival_rail));
}

void FailoverLog::attach_ack(Peer& peer, Header& header) noexcept {
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

void FailoverLog::flush() {
  due_ = false;
  for (const auto& peer : core_.peers.all()) {
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

void FailoverLog::send_all_owed() {
  for (const auto& peer : core_.peers.all()) {
    if (peer->failed) {
      continue;
    }
    for (std::size_t i = 0; i < peer->inbound.size(); ++i) {
      if (peer->inbound[i].unacked != 0) {
        send_ack(*peer, static_cast<std::uint8_t>(i));
      }
    }
  }
}

std::size_t FailoverLog::reply_path(const Peer& peer, std::size_t arrival_rail) noexcept {
  // Back the way the message came while that path is up, else any path up.
  const std::size_t path = peer.path_on(arrival_rail);
  return path != Peer::kNoPath && peer.paths[path].up ? path : peer.home();
}

bool FailoverLog::take_ack(Peer& peer, std::uint8_t path_rail, std::uint8_t epoch,
                           std::uint32_t acked, std::size_t rail) {
  const std::size_t index = peer.path_on(path_rail);
  if (index == Peer::kNoPath) [[unlikely]] {
    core_.drop(rail, ack_without_path(peer, path_rail));
    return false;
  }
  Path& path = peer.paths[index];
  if (epoch != path.epoch) {
    return true;  // for an earlier life of the path: what it kept was resent
  }
  if (seq_before(path.sent, acked)) [[unlikely]] {
    core_.drop(rail, ack_beyond_sent(peer, acked, path_rail, path.sent));
    return false;
  }
  path.unacked.release_through(acked);
  return true;
}

}  // namespace railyard::mrail::detail
