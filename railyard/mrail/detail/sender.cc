#include "railyard/mrail/detail/sender.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {

Status Sender::start(Request& request, PeerId peer_id, const void* data, std::size_t size,
                     std::uint64_t tag, bool tagged) {
  if (request.in_flight()) {
    return {StatusCode::kInvalidArgument, "send: the request is already in flight"};
  }
  if (data == nullptr && size != 0) {
    return {StatusCode::kInvalidArgument, fmt::format("send: {} bytes at a null address", size)};
  }
  Peer* const known = core_.peers.find(peer_id);
  if (known == nullptr || known->failed) {
    return core_.peers.check(peer_id, "send");
  }
  Peer& peer = *known;
  // The payload is only read; Request keeps one pointer type for both ways.
  request.start(RequestKind::kSend, peer_id, static_cast<std::byte*>(const_cast<void*>(data)),
                size);
  request.tag_ = tag;
  request.tagged_ = tagged;
  request.length_ = size;
  core_.requests.track(request);
  // Behind a waiting send, or with the window shut, the message queues so
  // sequence numbers keep the order of the calls.
  if (!peer.waiting.empty() || !peer.window_open()) {
    ++core_.totals.window_waits;
    peer.waiting.push_back(request);
  } else {
    transmit(peer, request);
  }
  core_.repost();  // after the message has left (see Core::repost)
  return {};
}

void Sender::release_waiting(Peer& peer) {
  while (!peer.waiting.empty() && peer.window_open()) {
    Request& request = *peer.waiting.front();
    peer.waiting.erase(request);
    transmit(peer, request);
  }
}

void Sender::transmit(Peer& peer, Request& request) {
  Header header;
  header.flags = request.tagged_ ? kFlagTagged : 0;
  header.seq = peer.next_seq++;
  header.source = core_.id;
  header.tag = request.tag_;
  header.total = request.capacity_;
  if (request.capacity_ <= peer.eager_limit) {
    send_eager(peer, request, header);
  } else {
    core_.rendezvous.send(peer, request, header);
  }
}

void Sender::send_eager(Peer& peer, Request& request, const Header& header) {
  ++core_.totals.eager_messages;
  // One path for fixed and round-robin, chosen without building the list
  // of pieces a striped message needs (this runs once per message).
  const Policy policy = core_.options.policies.policy_for(request.capacity_);
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
    RailState& state = core_.rails[path.local_rail];
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
    RailState& state = core_.rails[path.local_rail];
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

void Sender::send_control(Peer& peer, const Header& header) {
  send_control(peer, header, peer.home());
}

void Sender::send_control(Peer& peer, const Header& header, std::size_t path_index,
                          std::vector<std::byte> body) {
  const Path& path = peer.paths[path_index];
  Outgoing control;
  control.header = header;
  control.destination = path.address;
  control.peer = peer.id;
  control.body = std::move(body);
  enqueue(path.local_rail, std::move(control));
}

void Sender::enqueue(std::size_t rail, Outgoing message) {
  core_.rails[rail].queue.push_back(std::move(message));
  pump(rail);
}

void Sender::pump(std::size_t rail_index) {
  RailState& state = core_.rails[rail_index];
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

void Sender::emit(std::size_t rail_index, Header& header, rail::RailPeer destination,
                  PeerId peer_id, const std::byte* payload, std::size_t payload_length,
                  Request* owner) {
  RailState& state = core_.rails[rail_index];
  rail::Rail& rail = *state.rail;
  const std::size_t length = kHeaderSize + payload_length;
  // What fits an inject is written to the rail's scratch and leaves at
  // once; the rest takes a free send buffer (the caller saw one).
  const bool injected = length <= state.inject_scratch.size();
  TxSlot* const slot = injected ? nullptr : state.free_slots.back();
  std::byte* const out = injected ? state.inject_scratch.data() : slot->data();
  Path* numbered_on = nullptr;
  if (Peer* peer = core_.peers.find(peer_id); peer != nullptr) {
    // Granted, and an acknowledgement owed attached, as late as possible: a
    // message that waited in the queue carries the newest.
    header.credit = core_.credits.grant(*peer);
    FailoverLog::attach_ack(*peer, header);
    // With failover, a message is numbered on its path and kept until the
    // peer acknowledges it.
    if (numbered(header.type)) {
      header.path_rail = static_cast<std::uint8_t>(rail_index);
      header.path_seq = 0;
      header.path_epoch = 0;
      if (peer->guarded) {
        numbered_on = &peer->paths[peer->path_of_rail[rail_index]];
        header.path_seq = FailoverLog::next_path_seq(numbered_on->sent);
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
  // completion. Its send buffer's failure
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
    core_.paths.lost_message(peer_id, rail_index, posted);
    if (core_.paths.covered_by_failover(peer_id, rail_index)) {
      posted = Status();
    }
  }
  if (owner != nullptr && !owner_waits) {
    core_.lanes.piece_done(*owner, posted);
  }
}

void Sender::on_sent(TxSlot& slot, const rail::Completion& completion) {
  RailState& state = core_.rails[slot.rail()];
  Request* owner = std::exchange(slot.owner, nullptr);
  state.free_slots.push_back(&slot);
  Status status = completion.status;
  if (!status.ok()) {
    ++state.traffic.errors;
    // Canceled only when this endpoint has failed the peer, or its path,
    // itself (a send the provider drops with its connection completes as
    // unreachable).
    if (status.code() != StatusCode::kCanceled) {
      core_.paths.lost_message(slot.peer, slot.rail(), status);
    }
    // A message kept for failover went again over another path: its
    // request lost nothing.
    if (core_.paths.covered_by_failover(slot.peer, slot.rail())) {
      status = Status();
    }
  }
  // Always counted: a failing peer never finishes a request with pieces out.
  if (owner != nullptr) {
    core_.lanes.piece_done(*owner, status);
  }
  pump(slot.rail());
}

std::vector<Request*> Sender::drop_queued(Peer& peer) {
  std::vector<Request*> unsent;
  for (std::size_t rail = 0; rail < core_.rails.size(); ++rail) {
    std::erase_if(core_.rails[rail].queue, [&](const Outgoing& out) {
      if (out.peer != peer.id) {
        return false;
      }
      if (out.owner != nullptr) {
        unsent.push_back(out.owner);
      }
      return true;
    });
  }
  for (const Path& path : peer.paths) {
    (void)core_.rails[path.local_rail].rail->fail_deferred_posts_to(path.address, peer.failure);
  }
  return unsent;
}

void Sender::fail_waiting(Peer& peer) {
  while (Request* request = peer.waiting.front()) {
    peer.waiting.erase(*request);
    request->fail(peer.failure);
    core_.requests.finish(*request);
  }
}

void Sender::withdraw(Request& request) {
  core_.peers.find(request.peer_)->waiting.erase(request);
  core_.requests.finish(request);
}

}  // namespace railyard::mrail::detail
