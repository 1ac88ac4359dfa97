// The receive side of a multi-rail endpoint: putting each peer's messages
// back in order, matching them, assembling eager fragments and pulling
// rendezvous data; and the bookkeeping that finishes requests.
#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_internal.h"
#include "railyard/mrail/detail/matching_engine.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {
namespace {

using Placement = ReorderBuffer<std::unique_ptr<InboundMessage>>::Placement;

// Whether the peer's message `seq`, which locate() found no record of, had
// its turn and is done with (rather than lying past the window).
bool delivered(const Peer& peer, SeqNum seq) noexcept {
  return peer.early.place(seq) == Placement::kPast;
}

// Messages from endpoints not inserted yet are kept up to this much.
constexpr std::uint64_t kMaxStrangerBytes = std::uint64_t{64} << 20;

Status truncation(std::uint64_t message_length, std::uint64_t capacity, PeerId source,
                  std::uint64_t tag) {
  return {StatusCode::kTruncated,
          fmt::format("a {}-byte message from peer {} (tag 0x{:x}) was truncated to the "
                      "{}-byte receive buffer",
                      message_length, source.index, tag, capacity)};
}

// A peer whose number of paths changed, or whose first message this is,
// starts a new ring of arrivals (see expect_next_arrival). Out of line, as
// the other rare paths of the per-message code below: the common case then
// runs in functions that save few registers.
[[gnu::cold, gnu::noinline]] void restart_arrivals(Peer& peer, std::size_t ring) {
  peer.arrivals.assign(ring, 0);
  peer.arrival_count = 0;
  peer.arrival_slot = 0;
}

[[gnu::cold, gnu::noinline]] std::string credit_beyond_sent(SeqNum credit, const Peer& peer) {
  return fmt::format("credit {} from peer {} is beyond the {} messages sent", credit, peer.id.index,
                     peer.next_seq);
}

}  // namespace

Status Endpoint::start_recv(Request& request, PeerId source, void* data, std::size_t size,
                            std::uint64_t tag, std::uint64_t ignore, bool tagged) {
  if (request.in_flight()) {
    return {StatusCode::kInvalidArgument, "receive: the request is already in flight"};
  }
  if (data == nullptr && size != 0) {
    return {StatusCode::kInvalidArgument, fmt::format("receive: {} bytes at a null address", size)};
  }
  Peer* const named = source != kAnySource ? peer_of(source) : nullptr;
  if (source != kAnySource && named == nullptr) {
    return check_peer(source, "receive");
  }
  MatchingEngine& matcher = engine(tagged);
  // A message that arrived whole stays receivable after its sender failed;
  // past those, a receive only a failed peer could satisfy is refused.
  if ((named == nullptr || named->failed) &&
      matcher.peek_unexpected(source, tag, ignore) == nullptr) {
    if (named != nullptr) {
      return named->failure;
    }
    if (const Status* failure = every_peer_failed()) {
      return *failure;
    }
  }
  request.start(RequestKind::kRecv, source, static_cast<std::byte*>(data), size);
  request.tag_ = tag;
  request.ignore_ = ignore;
  request.tagged_ = tagged;
  track(request);
  if (InboundMessage* message = matcher.take_unexpected(source, tag, ignore)) {
    Peer& sender = *peer_of(message->source);
    uncount_unexpected(sender, *message);
    bind(sender, *message, request);
    release_credits();
  } else {
    matcher.post(request);
    // A peer held back by the total budget is released by a receive that
    // names it (see over_budget()).
    if (named != nullptr && named->credit_held) {
      credit(*named);
    }
  }
  // Receive buffers are reposted once the caller waits (PollHint::on_idle)
  // or sends: not here, where a ping-pong posts its receive just before the
  // send that the peer is waiting for.
  return {};
}

void Endpoint::on_receive(RxSlot& slot, const rail::Completion& completion) {
  RailState& state = *rails_[slot.rail()];
  if (completion.status.code() == StatusCode::kCanceled) {
    state.to_repost.push_back(&slot);  // its rail was reset (Rail::reset)
    return;
  }
  if (!completion.status.ok()) {
    ++state.traffic.errors;
    log::error("multi-rail endpoint {:016x}, rail {}: receive failed: {}", id_, slot.rail(),
               completion.status.to_string());
  } else {
    handle(slot.rail(), std::span<const std::byte>(slot.data(), completion.length));
  }
  state.to_repost.push_back(&slot);
  if (state.to_repost.size() * 2 >= state.receive_slots.size()) {
    repost(slot.rail());
  }
}

void Endpoint::repost(std::size_t rail) {
  RailState& state = *rails_[rail];
  for (RxSlot* slot : state.to_repost) {
    const Status reposted = state.rail->post_recv(
        *slot, rail::MutableBuffer{slot->data(), slot->size(), state.receive_region.descriptor()});
    if (!reposted.ok()) {
      log::error("multi-rail endpoint {:016x}, rail {}: reposting a receive buffer failed: {}", id_,
                 rail, reposted.to_string());
    }
  }
  state.to_repost.clear();
}

void Endpoint::repost() {
  for (std::size_t rail = 0; rail < rails_.size(); ++rail) {
    if (!rails_[rail]->to_repost.empty()) {
      repost(rail);
    }
  }
  if (acks_due_) {
    flush_acks();  // off the path of the message that made them due, too
  }
}

void Endpoint::idle_work() {
  repost();
  check_paths();
  if (resets_due_) {
    reset_rails();
  }
}

Peer* Endpoint::find_source(std::size_t rail, const Header& header,
                            std::span<const std::byte> message) {
  if (const auto known = peer_ids_.find(header.source); known != peer_ids_.end()) {
    return peers_[known->second.index].get();
  }
  // Its address has not been inserted yet: keep the message for then.
  if (stranger_bytes_ + message.size() > kMaxStrangerBytes) {
    drop(rail, fmt::format("endpoint {:016x} was never inserted and {} bytes from unknown "
                           "endpoints are already held",
                           header.source, stranger_bytes_));
    return nullptr;
  }
  stranger_bytes_ += message.size();
  strangers_[header.source].emplace_back(rail,
                                         std::vector<std::byte>(message.begin(), message.end()));
  return nullptr;
}

void Endpoint::handle(std::size_t rail, std::span<const std::byte> message) {
  Header header;
  std::string error;
  if (!decode_header(message, header, error)) {
    drop(rail, error);
    return;
  }
  Peer* source = last_source_;
  if (source == nullptr || source->endpoint_id != header.source) {
    source = find_source(rail, header, message);
    if (source == nullptr) {
      return;  // kept for when it is inserted, or dropped
    }
    last_source_ = source;
  }
  Peer& peer = *source;
  if (seq_before(peer.next_seq, header.credit)) {
    drop(rail, credit_beyond_sent(header.credit, peer));
    return;
  }
  if (seq_before(peer.credit, header.credit)) {
    peer.credit = header.credit;
    release_waiting(peer);
  }
  note_activity(peer, rail);
  if (header.ack_seq != 0 &&
      !take_ack(peer, header.ack_rail, header.ack_epoch, header.ack_seq, rail)) {
    return;
  }
  if (header.path_seq != 0 && numbered(header.type)) {
    note_arrival(peer, header, rail);
  }
  const auto payload = message.subspan(kHeaderSize);
  switch (header.type) {
    case MessageType::kEager:
      on_fragment(peer, header, payload, rail);
      break;
    case MessageType::kRts:
      on_rts(peer, header, payload);
      break;
    case MessageType::kFin: {
      const auto it = rendezvous_sends_.find(header.word);
      if (it == rendezvous_sends_.end()) {
        if (header.path_seq != 0) {
          ++totals_.duplicates_dropped;  // sent again after its path failed
          return;
        }
        drop(rail,
             fmt::format("FIN from peer {} for unknown transfer {}", peer.id.index, header.word));
        return;
      }
      if (it->second->large_->peer != peer.id) {
        // Transfer ids are ours, so only the peer we sent to may end one.
        drop(rail, fmt::format("FIN from peer {} for transfer {}, which went to peer {}",
                               peer.id.index, header.word, it->second->large_->peer.index));
        return;
      }
      Request& request = *it->second;
      rendezvous_sends_.erase(it);
      if ((header.flags & kFlagRevokeKeys) != 0) {
        // A read the peer's rail reset ended may still be on its way here.
        for (auto& lease : request.large_->leases) {
          lease.revoke();
        }
      }
      piece_done(request, Status());
      break;
    }
    case MessageType::kCredit:
      break;  // its grant was taken above
    case MessageType::kAck:
      (void)take_ack(peer, header.path_rail, header.path_epoch, header.path_seq, rail);
      break;
    case MessageType::kProbe:
      on_probe(peer, header, rail);
      break;
    case MessageType::kProbeReply:
      on_probe_reply(peer, header);
      break;
    case MessageType::kRailReset:
      on_rail_reset(peer, header, rail);
      break;
  }
}

InboundMessage* Endpoint::locate(Peer& peer, const Header& header) {
  switch (peer.early.place(header.seq)) {
    case Placement::kPast: {
      const auto ordinal = peer.early.ordinal_of_past(header.seq);
      if (!ordinal) {
        return nullptr;
      }
      const auto it = peer.current.find(*ordinal);
      if (it == peer.current.end()) {
        return nullptr;
      }
      return it->second.get();
    }
    case Placement::kWindow: {
      if (auto* slot = peer.early.find(header.seq)) {
        return slot->get();
      }
      auto message = std::make_unique<InboundMessage>();
      message->source = peer.id;
      message->seq = header.seq;
      message->type = header.type;
      message->tagged = header.tagged();
      message->tag = header.tag;
      message->total = header.total;
      if (header.seq != peer.early.next()) {
        ++totals_.early_arrivals;
      }
      return peer.early.emplace(header.seq, std::move(message)).get();
    }
    case Placement::kBeyond:
      break;
  }
  return nullptr;
}

void Endpoint::expect_next_arrival(Peer& peer, std::size_t rail) {
  // A sender that keeps to one path (fixed) or moves each message to its
  // next path (round-robin, striping) repeats itself every paths.size()
  // messages: then the next message comes where the one paths.size() - 1
  // messages ago came, and the poller waits there as it waits on the one
  // rail of the fixed policy. Anything else, or messages from several
  // peers in turn (the poller's spread mode serves them): no expectation.
  const bool same_sender = peer.id == last_sender_;
  last_sender_ = peer.id;
  const std::size_t period = peer.paths.size();
  const std::size_t ring = period + 1;
  if (peer.arrivals.size() != ring) [[unlikely]] {
    restart_arrivals(peer, ring);
  }
  // Slots in the ring of the message period - 1 messages ago and of the one
  // after it; stepped without a division, as this runs once per message.
  const auto step = [ring](std::size_t slot) { return slot + 1 == ring ? 0 : slot + 1; };
  const std::size_t slot = peer.arrival_slot;
  const std::size_t oldest = step(slot);
  const std::uint64_t k = peer.arrival_count++;
  peer.arrivals[slot] = static_cast<std::uint8_t>(rail);
  peer.arrival_slot = oldest;
  const bool repeats = same_sender && k >= period && peer.arrivals[oldest] == rail;
  poll_hint_.expected = repeats ? peer.arrivals[step(oldest)] : rail::PollHint::kNoRail;
}

void Endpoint::on_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                           std::size_t rail) {
  if (header.word == 0) {  // a message's first piece: where the sender began it
    expect_next_arrival(peer, rail);
  }
  // Fast path, the common case for small messages: the next message in order,
  // whole in this fragment, with a receive waiting. It goes straight into the
  // receive buffer without a reorder slot, message record or assembly copy.
  if (header.seq == peer.early.next() && header.word == 0 && payload.size() == header.total &&
      peer.early.find(header.seq) == nullptr) {
    if (Request* request = engine(header.tagged()).take_posted(peer.id, header.tag)) {
      RailTraffic& traffic = rails_[rail]->traffic;
      ++traffic.chunks_received;
      traffic.bytes_received += payload.size();
      request->peer_ = peer.id;
      request->tag_ = header.tag;
      request->message_length_ = header.total;
      request->length_ = std::min<std::uint64_t>(header.total, request->capacity_);
      if (request->length_ != 0) {
        std::memcpy(request->buffer_, payload.data(), request->length_);
      }
      if (header.total > request->capacity_) {
        request->fail(truncation(header.total, request->capacity_, peer.id, header.tag));
      }
      peer.early.skip_next();
      finish(*request);
      advance(peer);
      return;
    }
  }
  place_fragment(peer, header, payload, rail);
}

void Endpoint::place_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                              std::size_t rail) {
  InboundMessage* message = locate(peer, header);
  // A numbered fragment may come twice: sent again after its path failed,
  // when it had arrived after all.
  const bool may_repeat = header.path_seq != 0;
  if (may_repeat &&
      (message == nullptr ? delivered(peer, header.seq) : message->repeats(header.word))) {
    ++totals_.duplicates_dropped;
    return;
  }
  if (message == nullptr) {
    drop(rail, fmt::format("fragment of message {} from peer {} is outside the window [{}, +{}) "
                           "or repeats a delivered message",
                           header.seq, peer.id.index, peer.early.next(), peer.early.capacity()));
    return;
  }
  if (message->type != MessageType::kEager || message->total != header.total ||
      message->tag != header.tag || message->tagged != header.tagged() ||
      payload.size() > message->total - message->arrived) {
    drop(rail, fmt::format("fragment at offset {} of message {} from peer {} contradicts the "
                           "message's earlier fragments",
                           header.word, header.seq, peer.id.index));
    return;
  }
  RailTraffic& traffic = rails_[rail]->traffic;
  ++traffic.chunks_received;
  traffic.bytes_received += payload.size();
  if (Request* target = message->target) {
    // Matched: straight into the receive buffer, clipped to its size.
    if (header.word < target->capacity_) {
      const std::size_t fit =
          std::min<std::uint64_t>(payload.size(), target->capacity_ - header.word);
      std::memcpy(target->buffer_ + header.word, payload.data(), fit);
    }
  } else if (!payload.empty()) {
    if (message->assembly.empty()) {
      message->assembly.resize(message->total);
    }
    std::memcpy(message->assembly.data() + header.word, payload.data(), payload.size());
  }
  message->arrived += payload.size();
  if (may_repeat) {
    message->fragments.push_back(header.word);
  }
  if (message->turn_passed) {
    try_finish(peer, *message);
  } else {
    advance(peer);
  }
}

void Endpoint::on_rts(Peer& peer, const Header& header, std::span<const std::byte> body) {
  InboundMessage* message = locate(peer, header);
  std::string error;
  RtsBody rts;
  if (header.path_seq != 0 &&
      (message == nullptr ? delivered(peer, header.seq)
                          : message->type == MessageType::kRts && message->transfer_id != 0)) {
    ++totals_.duplicates_dropped;  // sent again after its path failed
    return;
  }
  if (message == nullptr || message->turn_passed || message->type != MessageType::kRts ||
      !decode_rts_body(body, rts, error)) {
    // Dropping a rendezvous request would leave its sender waiting: say so.
    log::error(
        "multi-rail endpoint {:016x}: malformed or repeated rendezvous request {} from "
        "peer {} ({}); its sender will not complete",
        id_, header.seq, peer.id.index, error.empty() ? "bad sequence number" : error);
    ++totals_.dropped_messages;
    return;
  }
  message->transfer_id = header.word;
  message->rts = std::move(rts);
  advance(peer);
}

void Endpoint::advance(Peer& peer) {
  while (peer.early.next_ready()) {
    const std::uint64_t ordinal = peer.early.delivered();
    auto owned = peer.early.take_next();
    InboundMessage& message = *owned;
    message.turn_passed = true;
    message.ordinal = ordinal;
    peer.current.emplace(ordinal, std::move(owned));
    on_turn(peer, message);
  }
  credit(peer);
}

void Endpoint::credit(Peer& peer) {
  // Reopen the sender's window a quarter at a time. Both sides use the
  // smaller of their two windows (peer.window), so the sender never waits
  // for a credit the receiver would only send later.
  if (seq_distance(peer.credited, peer.early.next()) <
      std::max<std::uint32_t>(1, peer.window / 4)) {
    return;
  }
  // Messages nobody asked for yet are over budget: the sender waits (once
  // the window it already has is used) until receives take some of them.
  if (over_budget(peer)) {
    if (!peer.credit_held) {
      peer.credit_held = true;
      ++held_credits_;
      ++totals_.credit_holds;
      if (!std::exchange(peer.credit_hold_logged, true)) {
        log::info(
            "multi-rail endpoint {:016x}: holding back peer {}'s credits: unexpected messages "
            "hold {} bytes from it (budget {}) and {} in all (budget {}); it waits until "
            "receives take them (logged once per peer)",
            id_, peer.id.index, peer.unexpected_bytes, options_.unexpected_peer_bytes,
            unexpected_bytes_, options_.unexpected_bytes);
      }
    }
    return;
  }
  // Granted now, so the messages that arrive before it leaves ask for no
  // second one; emit() writes the newest grant into it.
  (void)grant(peer);
  ++totals_.credit_messages;
  Header credit;
  credit.type = MessageType::kCredit;
  credit.source = id_;
  send_control(peer, credit);
}

bool Endpoint::over_budget(const Peer& peer) const noexcept {
  if (peer.unexpected_bytes > options_.unexpected_peer_bytes) {
    return true;
  }
  // Past the total, a peer that a posted receive names is still granted:
  // its next messages have a receive waiting, and holding it back because
  // other peers' messages fill the memory would leave that receive waiting
  // for ever. Its own budget still bounds what it can add.
  return unexpected_bytes_ > options_.unexpected_bytes && !awaited(peer);
}

bool Endpoint::awaited(const Peer& peer) const noexcept {
  return tagged_->posted_from(peer.id) != nullptr || untagged_->posted_from(peer.id) != nullptr;
}

std::uint32_t Endpoint::grant(Peer& peer) noexcept {
  if (!over_budget(peer)) {
    if (peer.credit_held) {
      peer.credit_held = false;
      --held_credits_;
    }
    peer.credited = peer.early.next();
  }
  return peer.credited;
}

void Endpoint::release_credits() {
  if (held_credits_ == 0) {
    return;
  }
  for (const auto& peer : peers_) {
    if (!peer->credit_held) {
      continue;
    }
    if (peer->failed) {
      peer->credit_held = false;
      --held_credits_;
    } else {
      credit(*peer);
    }
  }
}

void Endpoint::count_unexpected(Peer& peer, const InboundMessage& message) {
  peer.unexpected_bytes += message.held_bytes();
  unexpected_bytes_ += message.held_bytes();
}

void Endpoint::uncount_unexpected(Peer& peer, const InboundMessage& message) {
  peer.unexpected_bytes -= message.held_bytes();
  unexpected_bytes_ -= message.held_bytes();
}

void Endpoint::on_turn(Peer& peer, InboundMessage& message) {
  MatchingEngine& matcher = engine(message.tagged);
  if (Request* request = matcher.take_posted(message)) {
    bind(peer, message, *request);
  } else {
    ++totals_.unexpected_messages;
    matcher.add_unexpected(message);
    count_unexpected(peer, message);
  }
}

void Endpoint::bind(Peer& peer, InboundMessage& message, Request& request) {
  request.peer_ = message.source;
  request.tag_ = message.tag;
  request.message_length_ = message.total;
  if (message.type == MessageType::kRts) {
    start_pull(peer, message, request);
    return;
  }
  message.target = &request;
  if (!message.assembly.empty()) {
    const std::size_t fit = std::min<std::uint64_t>(message.total, request.capacity_);
    std::memcpy(request.buffer_, message.assembly.data(), fit);
    message.assembly = {};
  }
  try_finish(peer, message);
}

void Endpoint::try_finish(Peer& peer, InboundMessage& message) {
  if (message.target == nullptr || message.arrived != message.total) {
    return;
  }
  Request& request = *message.target;
  request.length_ = std::min<std::uint64_t>(message.total, request.capacity_);
  if (message.total > request.capacity_) {
    request.fail(truncation(message.total, request.capacity_, message.source, message.tag));
  }
  peer.current.erase(message.ordinal);  // destroys `message`
  finish(request);
}

void Endpoint::start_pull(Peer& peer, InboundMessage& message, Request& request) {
  const std::uint64_t bytes = std::min<std::uint64_t>(message.total, request.capacity_);
  auto large = std::make_unique<LargeTransfer>();
  large->transfer_id = message.transfer_id;
  large->peer = peer.id;
  RtsBody rts = std::move(message.rts);
  peer.current.erase(message.ordinal);  // destroys `message`
  request.length_ = bytes;
  request.large_ = std::move(large);
  if (request.message_length_ > request.capacity_) {
    request.fail(truncation(request.message_length_, request.capacity_, peer.id, request.tag_));
  }

  std::vector<StripePiece> pieces;
  if (bytes != 0) {
    // The sender's rail, where it is up here: the whole message for fixed
    // and round-robin, the first piece of a striped split.
    std::optional<std::size_t> preferred;
    for (std::size_t i = 0; i < peer.live.size(); ++i) {
      if (peer.paths[peer.live[i]].remote_rail == rts.preferred_rail) {
        preferred = i;
      }
    }
    if (rts.policy == Policy::kStriping) {
      if (preferred) {
        peer.split_from(bytes, *preferred, pieces);
      } else {
        peer.split(bytes, pieces);
      }
    } else {
      pieces.push_back(StripePiece{preferred ? peer.live[*preferred] : peer.home(), 0, bytes});
    }
  }
  LargeTransfer& transfer = *request.large_;
  transfer.keys = std::move(rts.keys);
  transfer.lease_by_rail.assign(rails_.size(), -1);
  // A truncated receive still reads what fits: only a failed post stops it.
  start_lanes(peer, request, pieces);
}

void Endpoint::start_lanes(Peer& peer, Request& request, std::span<const StripePiece> pieces) {
  LargeTransfer& transfer = *request.large_;
  // The request stays open while lanes are being set up and their first
  // chunks posted, so one that fails at once cannot finish it early.
  request.pending_ = 1;
  bool prepared = true;
  for (const auto& piece : pieces) {
    if (!add_lane(peer, request, piece.path, piece.offset, piece.offset + piece.length)) {
      prepared = false;
      break;
    }
  }
  if (!prepared) {
    drop_unposted(request);
  }
  // The lanes queue behind the transfers already waiting on their paths.
  for (std::size_t lane = 0; lane < transfer.lanes.size(); ++lane) {
    if (transfer.lanes[lane].next != transfer.lanes[lane].end) {
      peer.paths[transfer.lanes[lane].path].waiting_pulls.push_back(PullTurn{&request, lane});
    }
  }
  for (const auto& lane : transfer.lanes) {
    pump_pulls(peer.paths[lane.path]);
  }
  piece_done(request, Status());
}

bool Endpoint::add_lane(Peer& peer, Request& request, std::size_t path_index, std::uint64_t begin,
                        std::uint64_t end) {
  LargeTransfer& transfer = *request.large_;
  const Path& path = peer.paths[path_index];
  LargeTransfer::PullLane lane;
  // The peer's memory on the path: a put's or get's region, imported by the
  // caller; a pull's, from the key the RTS offered for the path's rail.
  const RtsBody::Key* key = nullptr;
  if (transfer.rma) {
    if (path_index >= transfer.rma->regions.size() || !transfer.rma->regions[path_index]) {
      request.fail(Status(StatusCode::kIoError,
                          fmt::format("the region of peer {} was imported without a key for its "
                                      "rail {}",
                                      peer.id.index, path.remote_rail)));
      return false;
    }
    lane.key_offset = transfer.rma->offset;
  } else {
    const auto found =
        std::find_if(transfer.keys.begin(), transfer.keys.end(),
                     [&](const RtsBody::Key& k) { return k.rail == path.remote_rail; });
    if (found == transfer.keys.end()) {
      request.fail(Status(StatusCode::kIoError, fmt::format("peer {} offered no memory key for "
                                                            "its rail {}",
                                                            peer.id.index, path.remote_rail)));
      return false;
    }
    key = &*found;
    lane.key_offset = key->offset;
  }
  try {
    if (transfer.rma && !transfer.rma->local_descriptors.empty()) {
      lane.descriptor = transfer.rma->local_descriptors[path.local_rail];
    } else {
      const std::size_t lease =
          transfer.lease_on(transfer.lease_by_rail, path.local_rail,
                            *rails_[path.local_rail]->cache, request.buffer_, request.length_);
      lane.descriptor = transfer.leases[lease].region().descriptor();
    }
    transfer.remotes.push_back(key != nullptr
                                   ? std::make_shared<const rail::RemoteRegion>(
                                         rails_[path.local_rail]->rail->import_region(key->key))
                                   : transfer.rma->regions[path_index]);
  } catch (const Error& e) {
    request.fail(Status(StatusCode::kIoError, fmt::format("preparing a transfer with peer {}: {}",
                                                          peer.id.index, e.what())));
    return false;
  }
  lane.path = path_index;
  lane.rail = path.local_rail;
  lane.address = path.address;
  lane.chunk = path.pull_chunk;
  lane.remote = transfer.remotes.size() - 1;
  lane.next = begin;
  lane.end = end;
  transfer.lanes.push_back(lane);
  request.pending_ += static_cast<std::uint32_t>(transfer.lanes.back().chunks_left());
  return true;
}

void Endpoint::pump_pulls(Path& path) {
  if (!path.up) {
    return;  // its shares moved to the paths left (rescue_pulls)
  }
  while (!path.waiting_pulls.empty()) {
    const PullTurn turn = path.waiting_pulls.front();
    const LargeTransfer::PullLane& lane = turn.request->large_->lanes[turn.lane];
    if (lane.next == lane.end) {
      path.waiting_pulls.pop_front();  // all posted, here or by other paths
      continue;
    }
    const std::uint64_t length = lane.next_chunk();
    if (!path.has_room_for(length)) {
      ++totals_.pull_stalls;
      return;
    }
    // A failed post, and the post of a message's last chunk, take the
    // request's turns off every queue (end_pull, drop_turns); a lane done
    // otherwise leaves on the next turn of the loop.
    (void)post_pull_chunk(path, *turn.request, turn.lane, turn.lane, length);
  }
  if (path.pull_bytes_in_flight == 0 && path.pull_chunk != 0) {
    help_other_paths(path);
  }
}

void Endpoint::help_other_paths(Path& idle) {
  Peer* peer = peer_of(idle.peer);
  if (peer == nullptr) {
    return;
  }
  const std::size_t idle_index = idle.index;
  if (!idle.up) {
    return;
  }
  while (true) {
    // The share with the most bytes not posted among those at the front of
    // a full path, of a message that reads over this path too.
    Request* request = nullptr;
    std::size_t victim = 0;
    std::size_t thief = 0;
    std::uint64_t most = 0;
    for (std::size_t p = 0; p < peer->paths.size(); ++p) {
      const Path& busy = peer->paths[p];
      if (p == idle_index || busy.waiting_pulls.empty()) {
        continue;
      }
      const PullTurn& turn = busy.waiting_pulls.front();
      const LargeTransfer& transfer = *turn.request->large_;
      const LargeTransfer::PullLane& lane = transfer.lanes[turn.lane];
      const std::uint64_t left = lane.end - lane.next;
      const std::size_t own = transfer.lane_on(idle_index);
      if (left > most && lane.chunk == idle.pull_chunk && own != transfer.lanes.size()) {
        most = left;
        request = turn.request;
        victim = turn.lane;
        thief = own;
      }
    }
    if (request == nullptr) {
      return;
    }
    const std::uint64_t length = request->large_->lanes[victim].last_chunk();
    if (!idle.has_room_for(length)) {
      return;
    }
    (void)post_pull_chunk(idle, *request, thief, victim, length);
  }
}

bool Endpoint::post_pull_chunk(Path& path, Request& request, std::size_t lane_index,
                               std::size_t from_lane, std::uint64_t length) {
  LargeTransfer& transfer = *request.large_;
  const LargeTransfer::PullLane& lane = transfer.lanes[lane_index];
  LargeTransfer::PullLane& source = transfer.lanes[from_lane];
  // Its own share from the front, another's from the back.
  const std::uint64_t offset = from_lane == lane_index ? source.next : source.end - length;
  const bool writes = transfer.rma && transfer.rma->writes;
  auto op = std::make_unique<PieceOp>(*this, request, lane.rail, length,
                                      writes ? PieceKind::kWrite : PieceKind::kRead, offset);
  op->set_path(path);
  rail::Rail& rail = *rails_[lane.rail]->rail;
  const rail::MutableBuffer local{request.buffer_ + offset, length, lane.descriptor};
  const rail::RemoteRegion& remote = *transfer.remotes[lane.remote];
  const Status posted =
      writes ? rail.post_write(*op, lane.address, local, remote, lane.key_offset + offset,
                               transfer.rma->confirm_delivery)
             : rail.post_read(*op, lane.address, local, remote, lane.key_offset + offset);
  if (!posted.ok()) {
    end_pull(request, posted);  // may finish the request
    return false;
  }
  if (from_lane == lane_index) {
    source.next += length;
  } else {
    source.end -= length;
    ++totals_.pull_chunks_moved;
  }
  path.pull_bytes_in_flight += length;
  if (writes) {
    path.write_bytes_in_flight += length;
  }
  totals_.pull_bytes_in_flight_peak =
      std::max(totals_.pull_bytes_in_flight_peak, path.pull_bytes_in_flight);
  transfer.ops.push_back(std::move(op));
  if (transfer.all_posted()) {
    // Every chunk is posted: no turn of the request may outlive it in a
    // queue (a lane whose last chunks another path took over still has one
    // on its path, which may be full of other reads for a while).
    drop_turns(request);
  }
  return true;
}

void Endpoint::drop_turns(const Request& request) noexcept {
  Peer* peer = peer_of(request.large_->peer);
  if (peer == nullptr) {
    return;
  }
  for (const auto& lane : request.large_->lanes) {
    std::erase_if(peer->paths[lane.path].waiting_pulls,
                  [&](const PullTurn& turn) { return turn.request == &request; });
  }
}

void Endpoint::drop_unposted(Request& request) noexcept {
  for (auto& lane : request.large_->lanes) {
    request.pending_ -= static_cast<std::uint32_t>(lane.chunks_left());
    lane.next = lane.end;
  }
  drop_turns(request);
}

void Endpoint::end_pull(Request& request, const Status& status) {
  request.fail(status);
  drop_unposted(request);
  if (request.pending_ == 0) {
    pieces_done(request);
  }
}

bool Endpoint::adopt_piece(Request& request, std::unique_ptr<PieceOp> op, const Status& posted) {
  if (!posted.ok()) {
    request.fail(posted);
    return false;
  }
  ++request.pending_;
  request.large_->ops.push_back(std::move(op));
  return true;
}

void Endpoint::on_piece(PieceOp& op, const rail::Completion& completion) {
  op.mark_completed();
  Path* const path = op.path();
  if (path != nullptr) {
    path->pull_bytes_in_flight -= op.bytes();  // it held room on its path until now
    if (op.kind() == PieceKind::kWrite) {
      path->write_bytes_in_flight -= op.bytes();
    }
  }
  if (op.request() == nullptr) {
    on_orphan_piece(op);  // may destroy `op`
    if (path != nullptr) {
      pump_pulls(*path);
    }
    return;
  }
  RailTraffic& traffic = rails_[op.rail()]->traffic;
  if (!completion.status.ok()) {
    ++traffic.errors;
  } else {
    switch (op.kind()) {
      case PieceKind::kRead:
        traffic.bytes_received += op.bytes();
        ++traffic.chunks_received;
        break;
      case PieceKind::kWrite:
        traffic.bytes_sent += op.bytes();
        ++traffic.chunks_sent;
        break;
      case PieceKind::kFlush:
        break;
    }
  }
  Request& request = *op.request();
  Status status = completion.status;
  if (status.ok()) {
    if (Peer* peer = peer_of(request.peer_); peer != nullptr) {
      note_activity(*peer, op.rail());  // the peer answered over it
    }
  }
  if (status.code() == StatusCode::kUnreachable) {
    lost_message(request.peer_, op.rail(), status);
  }
  if (op.kind() == PieceKind::kFlush) {
    if (!status.ok() && covered_by_failover(request.peer_, op.rail())) {
      status = flush_over_failed_path(op);
    }
  } else if (path != nullptr) {
    if (status.code() == StatusCode::kCanceled && op.kind() == PieceKind::kRead && request.large_) {
      request.large_->reads_reset = true;  // ended by a rail reset
    }
    if (!status.ok() && request.large_ && covered_by_failover(request.peer_, op.rail())) {
      // Its path is down: move the chunk again over another.
      if (reread(*path, request, op.offset(), op.bytes())) {
        status = Status();
      }
    }
    if (!status.ok() && request.large_) {
      drop_unposted(request);
    }
    // The path's next chunks go before this one is counted done, so its
    // request cannot finish between the two.
    pump_pulls(*path);
  }
  piece_done(request, status);  // may destroy `op`
}

void Endpoint::piece_done(Request& request, const Status& status) {
  if (!status.ok()) {
    request.fail(status);
  }
  if (--request.pending_ == 0) {
    pieces_done(request);
  }
}

void Endpoint::pieces_done(Request& request) {
  if (request.large_ && held_open(request)) {
    return;
  }
  if (request.kind_ == RequestKind::kRecv && request.large_) {
    // Pulled (or failed to): the sender may let go of its buffer.
    if (Peer* peer = peer_of(request.large_->peer); peer != nullptr && !peer->failed) {
      Header fin;
      fin.type = MessageType::kFin;
      fin.flags = request.large_->reads_reset ? kFlagRevokeKeys : 0;
      fin.source = id_;
      fin.word = request.large_->transfer_id;
      // Back on the path the message's first piece came by (its RTS's, see
      // send_rendezvous), so FINs spread over the rails as their messages
      // did (reply_path: the home path when that one is down); the home
      // path when nothing was read.
      const auto& lanes = request.large_->lanes;
      send_control(*peer, fin,
                   lanes.empty() ? peer->home() : reply_path(*peer, lanes.front().rail));
    }
  }
  if (request.kind_ == RequestKind::kSend && request.large_) {
    rendezvous_sends_.erase(request.large_->transfer_id);
  }
  finish(request);
}

bool Endpoint::held_open(Request& request) {
  // Every chunk posted counts one piece until its completion: none may be
  // in flight now. One that is would be freed with the transfer while the
  // provider still writes its completion (and its bytes) through it, so a
  // miscount (a piece counted done twice) waits for them instead.
  std::uint32_t in_flight = 0;
  const PieceOp* first = nullptr;
  for (const auto& op : request.large_->ops) {
    const auto& piece = static_cast<const PieceOp&>(*op);
    if (!piece.completed()) {
      first = first != nullptr ? first : &piece;
      ++in_flight;
    }
  }
  if (in_flight == 0) {
    return false;
  }
  ++totals_.miscounted_transfers;
  log::error(
      "multi-rail endpoint {:016x}: a {} request of {} bytes with peer {} counted its last piece "
      "done with {} chunk(s) still in flight (the first: {} bytes at offset {} on rail {}); it "
      "completes when they do. Please report this.",
      id_, to_string(request.kind_), request.capacity_, request.peer_.index, in_flight,
      first->bytes(), first->offset(), first->rail());
  request.pending_ = in_flight;
  return true;
}

void Endpoint::fail_peer(Peer& peer, const Status& status) {
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
  log::error("multi-rail endpoint {:016x}: {}", id_, peer.failure.message());
  // Its fragments and control messages still queued, on our side and in the
  // rails' deferred posts, would hold up other peers' traffic: they go now.
  // Their requests are told once the rest is consistent.
  std::vector<Request*> unsent;
  for (auto& state : rails_) {
    std::erase_if(state->queue, [&](const Outgoing& out) {
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
    (void)rails_[path.local_rail]->rail->fail_deferred_posts_to(path.address, peer.failure);
  }
  // Pulls from it waiting for room on a path: they read nothing more.
  std::vector<Request*> pulling;
  for (const Path& path : peer.paths) {
    for (const PullTurn& turn : path.waiting_pulls) {
      if (std::find(pulling.begin(), pulling.end(), turn.request) == pulling.end()) {
        pulling.push_back(turn.request);
      }
    }
  }
  for (Request* request : pulling) {
    end_pull(*request, peer.failure);
  }
  // Sends that never left.
  while (Request* request = peer.waiting.front()) {
    peer.waiting.erase(*request);
    request->fail(peer.failure);
    finish(*request);
  }
  // Rendezvous sends waiting for a FIN that will not come: that piece ends.
  std::vector<Request*> orphans;
  for (const auto& [transfer, request] : rendezvous_sends_) {
    if (request->peer_ == peer.id) {
      orphans.push_back(request);
    }
  }
  for (Request* request : orphans) {
    rendezvous_sends_.erase(request->large_->transfer_id);
    piece_done(*request, peer.failure);
  }
  // Receives naming this peer, and messages from it still being assembled.
  fail_posted_from(peer.id, peer.failure);
  // Complete unexpected messages stay receivable; the rest cannot finish.
  std::vector<std::uint64_t> stalled;
  for (auto& [ordinal, message] : peer.current) {
    if (message->target != nullptr) {
      message->target->fail(peer.failure);
      finish(*message->target);
      stalled.push_back(ordinal);
    } else if (message->type == MessageType::kRts || !message->complete()) {
      engine(message->tagged).remove_unexpected(*message);
      uncount_unexpected(peer, *message);
      stalled.push_back(ordinal);
    }
  }
  for (const std::uint64_t ordinal : stalled) {
    peer.current.erase(ordinal);
  }
  for (Request* request : unsent) {
    piece_done(*request, peer.failure);
  }
  release_credits();  // budget its stalled messages held
  fail_orphaned_wildcards();
}

const Status* Endpoint::every_peer_failed() const noexcept {
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

void Endpoint::fail_orphaned_wildcards() {
  if (every_peer_failed() == nullptr) {
    return;
  }
  // No inserted peer can send any more: a wildcard receive would wait
  // forever. (One matching a message already here was bound at once.)
  fail_posted_from(kAnySource, last_failure_);
}

void Endpoint::fail_posted_from(PeerId source, const Status& status) {
  for (MatchingEngine* matcher : {tagged_.get(), untagged_.get()}) {
    while (Request* request = matcher->posted_from(source)) {
      (void)matcher->cancel(*request);
      request->fail(status);
      finish(*request);
    }
  }
}

}  // namespace railyard::mrail
