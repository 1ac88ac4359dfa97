// The send side of a multi-rail endpoint: choosing rails, fragmenting eager
// messages, requesting rendezvous, and feeding send buffers to the rails.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_internal.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {

Status Endpoint::start_send(Request& request, PeerId peer_id, const void* data, std::size_t size,
                            std::uint64_t tag, bool tagged) {
  if (request.in_flight()) {
    return {StatusCode::kInvalidArgument, "send: the request is already in flight"};
  }
  if (data == nullptr && size != 0) {
    return {StatusCode::kInvalidArgument, fmt::format("send: {} bytes at a null address", size)};
  }
  Peer* const known = peer_of(peer_id);
  if (known == nullptr || known->failed) {
    return check_peer(peer_id, "send");
  }
  Peer& peer = *known;
  // The payload is only read; Request keeps one pointer type for both ways.
  request.start(RequestKind::kSend, peer_id, static_cast<std::byte*>(const_cast<void*>(data)),
                size);
  request.tag_ = tag;
  request.tagged_ = tagged;
  request.length_ = size;
  track(request);
  // Behind a waiting send, or with the window shut, the message queues so
  // sequence numbers keep the order of the calls.
  if (!peer.waiting.empty() || !peer.window_open()) {
    ++totals_.window_waits;
    peer.waiting.push_back(request);
  } else {
    transmit(peer, request);
  }
  repost();  // after the message has left (see repost())
  return {};
}

void Endpoint::release_waiting(Peer& peer) {
  while (!peer.waiting.empty() && peer.window_open()) {
    Request& request = *peer.waiting.front();
    peer.waiting.erase(request);
    transmit(peer, request);
  }
}

void Endpoint::transmit(Peer& peer, Request& request) {
  Header header;
  header.flags = request.tagged_ ? kFlagTagged : 0;
  header.seq = peer.next_seq++;
  header.source = id_;
  header.tag = request.tag_;
  header.total = request.capacity_;
  if (request.capacity_ <= peer.eager_limit) {
    send_eager(peer, request, header);
  } else {
    send_rendezvous(peer, request, header);
  }
}

void Endpoint::send_eager(Peer& peer, Request& request, const Header& header) {
  ++totals_.eager_messages;
  // One path for fixed and round-robin, chosen without building the list
  // of pieces a striped message needs (this runs once per message).
  const Policy policy = options_.policies.policy_for(request.capacity_);
  std::size_t single = Peer::kNoPath;
  if (policy == Policy::kStriping) {
    if (peer.split(request.capacity_, pieces_); pieces_.size() == 1) {
      single = pieces_.front().path;
    }
  } else {
    single = policy == Policy::kFixed ? peer.home() : peer.take_next_path();
  }
  // The common case of a small message: one fragment, on a rail with
  // nothing queued and a send buffer free (or none needed), leaves at once.
  if (single != Peer::kNoPath && request.capacity_ <= peer.max_fragment) {
    const Path& path = peer.paths[single];
    RailState& state = *rails_[path.local_rail];
    if (state.queue.empty() && (!state.free_slots.empty() ||
                                kHeaderSize + request.capacity_ <= state.inject_scratch.size())) {
      ++state.traffic.messages_sent;
      request.pending_ = 1;
      Header fragment = header;
      fragment.type = MessageType::kEager;
      fragment.word = 0;
      emit(path.local_rail, fragment, path.address, peer.id, request.buffer_, request.capacity_,
           &request);
      return;
    }
  }
  if (policy != Policy::kStriping) {
    pieces_.assign(1, StripePiece{single, 0, request.capacity_});
  }
  // Count every fragment before the first goes out: a fragment may complete
  // at once (inject), and the request must not finish early.
  const std::uint64_t fragment_size = peer.max_fragment;
  std::uint32_t count = 0;
  for (const auto& piece : pieces_) {
    count += static_cast<std::uint32_t>(
        std::max<std::uint64_t>(1, (piece.length + fragment_size - 1) / fragment_size));
  }
  request.pending_ = count;
  std::uint64_t touched = 0;  // a bit per rail (at most kMaxRails = 64)
  for (const auto& piece : pieces_) {
    const Path& path = peer.paths[piece.path];
    RailState& state = *rails_[path.local_rail];
    ++state.traffic.messages_sent;
    touched |= std::uint64_t{1} << path.local_rail;
    std::uint64_t offset = piece.offset;
    const std::uint64_t end = piece.offset + piece.length;
    do {
      const std::uint64_t length = std::min<std::uint64_t>(fragment_size, end - offset);
      Outgoing& fragment = state.queue.emplace_back();
      fragment.header = header;
      fragment.header.type = MessageType::kEager;
      fragment.header.word = offset;
      fragment.destination = path.address;
      fragment.peer = peer.id;
      fragment.payload = request.buffer_ + offset;
      fragment.length = length;
      fragment.owner = &request;
      offset += length;
    } while (offset < end);
  }
  for (std::size_t rail = 0; touched != 0; ++rail, touched >>= 1U) {
    if ((touched & 1U) != 0) {
      pump(rail);
    }
  }
}

void Endpoint::send_rendezvous(Peer& peer, Request& request, Header header) {
  ++totals_.rendezvous_messages;
  auto large = std::make_unique<LargeTransfer>();
  large->transfer_id = next_transfer_id_++;
  large->peer = peer.id;
  RtsBody body;
  body.policy = options_.policies.policy_for(request.capacity_);
  // The rail to pull from (fixed, round-robin) or the first of a striped
  // split (the receiver splits from there). The RTS travels on it too: a
  // window of rendezvous messages then spreads its requests over the rails
  // as it spreads its data, instead of queueing every request on the home
  // rail, which then carried ~300 bytes more per message than the others
  // and set the pace of all (docs/benchmarks.md, session 42).
  const std::size_t preferred = body.policy == Policy::kFixed ? peer.home() : peer.take_next_path();
  body.preferred_rail = static_cast<std::uint8_t>(peer.paths[preferred].local_rail);
  try {
    std::vector<bool> registered(rails_.size(), false);
    for (const auto& path : peer.paths) {
      if (registered[path.local_rail]) {
        continue;
      }
      registered[path.local_rail] = true;
      auto lease = rails_[path.local_rail]->cache->acquire(request.buffer_, request.capacity_);
      const auto& region = lease.region();
      body.keys.push_back(RtsBody::Key{
          static_cast<std::uint8_t>(path.local_rail),
          static_cast<std::uint64_t>(request.buffer_ - static_cast<std::byte*>(region.base())),
          region.remote_key()});
      large->leases.push_back(std::move(lease));
    }
  } catch (const Error& e) {
    request.fail(Status(
        StatusCode::kIoError,
        fmt::format("registering a {}-byte send buffer failed: {}", request.capacity_, e.what())));
    finish(request);
    return;
  }
  header.type = MessageType::kRts;
  header.word = large->transfer_id;
  rendezvous_sends_.emplace(large->transfer_id, &request);
  request.large_ = std::move(large);
  // Done when the request-to-send has gone and the receiver's FIN came back.
  request.pending_ = 2;

  const Path& path = peer.paths[preferred];
  ++rails_[path.local_rail]->traffic.messages_sent;
  Outgoing rts;
  rts.header = header;
  rts.destination = path.address;
  rts.peer = peer.id;
  rts.body = encode_rts_body(body);
  rts.owner = &request;
  enqueue(path.local_rail, std::move(rts));
}

void Endpoint::send_control(Peer& peer, const Header& header) {
  send_control(peer, header, peer.home());
}

void Endpoint::send_control(Peer& peer, const Header& header, std::size_t path_index) {
  const Path& path = peer.paths[path_index];
  Outgoing control;
  control.header = header;
  control.destination = path.address;
  control.peer = peer.id;
  enqueue(path.local_rail, std::move(control));
}

void Endpoint::enqueue(std::size_t rail, Outgoing fragment) {
  rails_[rail]->queue.push_back(std::move(fragment));
  pump(rail);
}

void Endpoint::pump(std::size_t rail_index) {
  RailState& state = *rails_[rail_index];
  const std::size_t inject_size = state.inject_scratch.size();
  while (!state.queue.empty()) {
    const Outgoing& front = state.queue.front();
    const std::size_t length =
        kHeaderSize + (front.body.empty() ? front.length : front.body.size());
    if (length > inject_size && state.free_slots.empty()) {
      break;  // in order: what needs a send buffer waits for one
    }
    Outgoing out = std::move(state.queue.front());
    state.queue.pop_front();
    const bool own_body = !out.body.empty();
    emit(rail_index, out.header, out.destination, out.peer,
         own_body ? out.body.data() : out.payload, own_body ? out.body.size() : out.length,
         out.owner);
  }
}

void Endpoint::emit(std::size_t rail_index, Header& header, rail::RailPeer destination, PeerId peer_id,
                    const std::byte* payload, std::size_t payload_length, Request* owner) {
  RailState& state = *rails_[rail_index];
  rail::Rail& rail = *state.rail;
  const std::size_t length = kHeaderSize + payload_length;
  // What fits an inject is written to the rail's scratch and leaves at
  // once; the rest takes a free send buffer (the caller saw one).
  const bool injected = length <= state.inject_scratch.size();
  TxSlot* const slot = injected ? nullptr : state.free_slots.back();
  std::byte* const out = injected ? state.inject_scratch.data() : slot->data();
  Path* numbered_on = nullptr;
  if (Peer* peer = peer_of(peer_id); peer != nullptr) {
    // Granted, and an acknowledgement owed attached, as late as possible: a
    // message that waited in the queue carries the newest.
    header.credit = grant(*peer);
    attach_ack(*peer, header);
    // With failover, a message is numbered on its path and kept until the
    // peer acknowledges it.
    if (numbered(header.type)) {
      header.path_rail = static_cast<std::uint8_t>(rail_index);
      header.path_seq = 0;
      header.path_epoch = 0;
      if (peer->guarded) {
        numbered_on = &peer->paths[peer->path_of_rail[rail_index]];
        header.path_seq = next_path_seq(numbered_on->sent);
        header.path_epoch = numbered_on->epoch;
      }
    }
  }
  encode_header(header, out);
  if (payload_length != 0) {
    std::memcpy(out + kHeaderSize, payload, payload_length);
  }
  if (header.type == MessageType::kEager) {
    ++state.traffic.chunks_sent;
    state.traffic.bytes_sent += payload_length;
  }
  Status posted;
  // An eager fragment is done with its request's buffer once it is copied
  // out, as an inject is: its piece is done now, not at the send buffer's
  // completion, so a blocking send returns without polling for that
  // completion (docs/benchmarks.md, session 51). Its send buffer's failure
  // still fails the peer, or goes by failover (on_sent). An RTS's piece
  // waits for its completion: the FIN follows it.
  bool owner_waits = false;
  if (injected) {
    posted = rail.inject(destination, rail::ConstBuffer{out, length, nullptr});
  } else {
    state.free_slots.pop_back();
    owner_waits = owner != nullptr && header.type != MessageType::kEager;
    slot->owner = owner_waits ? owner : nullptr;
    slot->peer = peer_id;
    posted = rail.post_send(*slot, destination,
                            rail::ConstBuffer{out, length, state.send_region.descriptor()});
    if (!posted.ok()) {
      owner_waits = false;
      slot->owner = nullptr;
      state.free_slots.push_back(slot);
    }
  }
  // Kept once it has left, off the message's path (the scratch and the send
  // buffer still hold it), and before a failed post hands it to failover.
  if (numbered_on != nullptr) {
    numbered_on->unacked.push(header.path_seq, std::span<const std::byte>(out, length));
  }
  if (!posted.ok()) {
    // Every message to a peer is one it counts on (a numbered fragment, a
    // credit, a FIN): without it the peer's stream is broken for good,
    // unless failover kept it and sends it again over another path.
    ++state.traffic.errors;
    lost_message(peer_id, rail_index, posted);
    if (covered_by_failover(peer_id, rail_index)) {
      posted = Status();
    }
  }
  if (owner != nullptr && !owner_waits) {
    piece_done(*owner, posted);
  }
}

void Endpoint::lost_message(PeerId peer_id, std::size_t rail, const Status& status) {
  Peer* peer = peer_of(peer_id);
  if (peer == nullptr) {
    return;
  }
  // With failover, the message was kept and goes again over another path;
  // only the path it took is lost.
  if (const std::size_t path = peer->path_on(rail); peer->guarded && path != Peer::kNoPath) {
    path_down(*peer, path, status.message());
    return;
  }
  fail_peer(*peer, status);
}

bool Endpoint::covered_by_failover(PeerId peer_id, std::size_t rail) const noexcept {
  const Peer* peer = peer_of(peer_id);
  if (peer == nullptr || !peer->guarded || peer->failed) {
    return false;
  }
  const std::size_t path = peer->path_on(rail);
  return path != Peer::kNoPath && !peer->paths[path].up;
}

void Endpoint::on_sent(TxSlot& slot, const rail::Completion& completion) {
  RailState& state = *rails_[slot.rail()];
  Request* owner = std::exchange(slot.owner, nullptr);
  state.free_slots.push_back(&slot);
  Status status = completion.status;
  if (!status.ok()) {
    ++state.traffic.errors;
    // Canceled only when this endpoint has failed the peer, or its path,
    // itself (a send the provider drops with its connection completes as
    // unreachable).
    if (status.code() != StatusCode::kCanceled) {
      lost_message(slot.peer, slot.rail(), status);
    }
    // A message kept for failover went again over another path: its
    // request lost nothing.
    if (covered_by_failover(slot.peer, slot.rail())) {
      status = Status();
    }
  }
  // Always counted: fail_peer never finishes a request with pieces out.
  if (owner != nullptr) {
    piece_done(*owner, status);
  }
  pump(slot.rail());
}

}  // namespace railyard::mrail
