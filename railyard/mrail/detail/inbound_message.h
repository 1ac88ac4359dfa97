// A message arriving from a peer, from its first fragment until it has been
// matched and fully delivered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "railyard/common/intrusive_list.h"
#include "railyard/mrail/detail/sequence.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"

namespace railyard::mrail {

class Request;

struct InboundMessage {
  PeerId source;
  SeqNum seq = 0;
  std::uint64_t ordinal = 0;  // the peer's messages before it, once its turn has passed
  MessageType type = MessageType::kEager;
  bool tagged = false;
  std::uint64_t tag = 0;
  std::uint64_t total = 0;
  // Eager: payload bytes arrived so far, held in `assembly` until a receive
  // matches; after that they land straight in the receive's buffer.
  std::uint64_t arrived = 0;
  std::vector<std::byte> assembly;
  // The offsets of the numbered fragments that arrived: with failover a
  // fragment may come again, over another path, and must not count twice.
  std::vector<std::uint64_t> fragments;
  Request* target = nullptr;
  bool turn_passed = false;  // matched, or queued unexpected
  // Rendezvous: where and how to pull the data.
  std::uint64_t transfer_id = 0;
  RtsBody rts;
  ListHook match_hook;  // in an unexpected queue

  // What it holds in memory while unexpected: an eager message its whole
  // payload (assembled here), a rendezvous request none.
  [[nodiscard]] std::uint64_t held_bytes() const noexcept {
    return type == MessageType::kEager ? total : 0;
  }
  // Whether the eager fragment at `offset` has arrived already.
  [[nodiscard]] bool repeats(std::uint64_t offset) const noexcept {
    return type == MessageType::kEager &&
           std::find(fragments.begin(), fragments.end(), offset) != fragments.end();
  }
  [[nodiscard]] bool complete() const noexcept {
    return type == MessageType::kRts || arrived == total;
  }
};

}  // namespace railyard::mrail
