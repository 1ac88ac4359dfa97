#include "railyard/mrail/detail/receiver.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {
namespace {

using Placement = ReorderBuffer<std::unique_ptr<InboundMessage>>::Placement;

// Whether the peer's message `seq`, which locate() found no record of, had
// its turn and is done with (rather than lying past the window).
bool delivered(const Peer& peer, SeqNum seq) noexcept {
  return peer.early.place(seq) == Placement::kPast;
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

Status Receiver::start(Request& request, PeerId source, void* data, std::size_t size,
                       std::uint64_t tag, std::uint64_t ignore, bool tagged) {
  if (request.in_flight()) {
    return {StatusCode::kInvalidArgument, "receive: the request is already in flight"};
  }
  if (data == nullptr && size != 0) {
    return {StatusCode::kInvalidArgument, fmt::format("receive: {} bytes at a null address", size)};
  }
  Peer* const named = source != kAnySource ? core_.peers.find(source) : nullptr;
  if (source != kAnySource && named == nullptr) {
    return core_.peers.check(source, "receive");
  }
  MatchingEngine& matcher = engine(tagged);
  // A message that arrived whole stays receivable after its sender failed;
  // past those, a receive only a failed peer could satisfy is refused.
  if ((named == nullptr || named->failed) &&
      matcher.peek_unexpected(source, tag, ignore) == nullptr) {
    if (named != nullptr) {
      return named->failure;
    }
    if (const Status* failure = core_.peers.every_peer_failed()) {
      return *failure;
    }
  }
  request.start(RequestKind::kRecv, source, static_cast<std::byte*>(data), size);
  request.tag_ = tag;
  request.ignore_ = ignore;
  request.tagged_ = tagged;
  core_.requests.track(request);
  if (InboundMessage* message = matcher.take_unexpected(source, tag, ignore)) {
    Peer& sender = *core_.peers.find(message->source);
    core_.credits.uncount_unexpected(sender, *message);
    bind(sender, *message, request);
    core_.credits.release();
  } else {
    matcher.post(request);
    // A peer held back by the total budget is released by a receive that
    // names it (see over_budget()).
    if (named != nullptr && named->credit_held) {
      core_.credits.credit(*named);
    }
  }
  // Receive buffers are reposted once the caller waits (PollHint::on_idle)
  // or sends: not here, where a ping-pong posts its receive just before the
  // send that the peer is waiting for.
  return {};
}

void Receiver::on_receive(RxSlot& slot, const rail::Completion& completion) {
  RailState& state = core_.rails[slot.rail()];
  if (completion.status.code() == StatusCode::kCanceled) {
    state.to_repost.push_back(&slot);  // its rail was reset (Rail::reset)
    return;
  }
  if (!completion.status.ok()) {
    ++state.traffic.errors;
    log::error("multi-rail endpoint {:016x}, rail {}: receive failed: {}", core_.id, slot.rail(),
               completion.status.to_string());
  } else {
    handle(slot.rail(), std::span<const std::byte>(slot.data(), completion.length));
  }
  state.to_repost.push_back(&slot);
  if (state.to_repost.size() * 2 >= state.receive_slots.size()) {
    core_.rails.repost(slot.rail());
  }
}

void Receiver::handle(std::size_t rail, std::span<const std::byte> message) {
  Header header;
  std::string error;
  if (!decode_header(message, header, error)) {
    core_.drop(rail, error);
    return;
  }
  Peer* const source = core_.peers.source_of(rail, header, message);
  if (source == nullptr) {
    return;  // kept for when it is inserted, or dropped
  }
  Peer& peer = *source;
  if (seq_before(peer.next_seq, header.credit)) {
    core_.drop(rail, credit_beyond_sent(header.credit, peer));
    return;
  }
  if (seq_before(peer.credit, header.credit)) {
    peer.credit = header.credit;
    core_.sender.release_waiting(peer);
  }
  PathMonitor::note_activity(peer, rail);
  if (header.ack_seq != 0 &&
      !core_.acks.take_ack(peer, header.ack_rail, header.ack_epoch, header.ack_seq, rail)) {
    return;
  }
  if (header.path_seq != 0 && numbered(header.type)) {
    core_.acks.note_arrival(peer, header, rail);
  }
  const auto payload = message.subspan(kHeaderSize);
  switch (header.type) {
    case MessageType::kEager:
      on_fragment(peer, header, payload, rail);
      break;
    case MessageType::kRts:
      on_rts(peer, header, payload);
      break;
    case MessageType::kFin:
      core_.rendezvous.on_fin(peer, header, payload, rail);
      break;
    case MessageType::kCredit:
      break;  // its grant was taken above
    case MessageType::kAck:
      (void)core_.acks.take_ack(peer, header.path_rail, header.path_epoch, header.path_seq, rail);
      break;
    case MessageType::kProbe:
      core_.paths.on_probe(peer, header, rail);
      break;
    case MessageType::kProbeReply:
      core_.paths.on_probe_reply(peer, header);
      break;
    case MessageType::kRailReset:
      core_.resets.on_notice(peer, header, rail);
      break;
  }
}

InboundMessage* Receiver::locate(Peer& peer, const Header& header) {
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
        ++core_.totals.early_arrivals;
      }
      return peer.early.emplace(header.seq, std::move(message)).get();
    }
    case Placement::kBeyond:
      break;
  }
  return nullptr;
}

void Receiver::expect_next_arrival(Peer& peer, std::size_t rail) {
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
  core_.poll_hint.expected = repeats ? peer.arrivals[step(oldest)] : rail::PollHint::kNoRail;
}

void Receiver::on_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
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
      RailTraffic& traffic = core_.rails[rail].traffic;
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
        request->fail(truncated(header.total, request->capacity_, peer.id, header.tag));
      }
      peer.early.skip_next();
      core_.requests.finish(*request);
      advance(peer);
      return;
    }
  }
  place_fragment(peer, header, payload, rail);
}

void Receiver::place_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                              std::size_t rail) {
  InboundMessage* message = locate(peer, header);
  // A numbered fragment may come twice: sent again after its path failed,
  // when it had arrived after all.
  const bool may_repeat = header.path_seq != 0;
  if (may_repeat &&
      (message == nullptr ? delivered(peer, header.seq) : message->repeats(header.word))) {
    ++core_.totals.duplicates_dropped;
    return;
  }
  if (message == nullptr) {
    core_.drop(rail,
               fmt::format("fragment of message {} from peer {} is outside the window [{}, +{}) "
                           "or repeats a delivered message",
                           header.seq, peer.id.index, peer.early.next(), peer.early.capacity()));
    return;
  }
  if (message->type != MessageType::kEager || message->total != header.total ||
      message->tag != header.tag || message->tagged != header.tagged() ||
      payload.size() > message->total - message->arrived) {
    core_.drop(rail, fmt::format("fragment at offset {} of message {} from peer {} contradicts the "
                                 "message's earlier fragments",
                                 header.word, header.seq, peer.id.index));
    return;
  }
  RailTraffic& traffic = core_.rails[rail].traffic;
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

void Receiver::on_rts(Peer& peer, const Header& header, std::span<const std::byte> body) {
  InboundMessage* message = locate(peer, header);
  std::string error;
  RtsBody rts;
  if (header.path_seq != 0 &&
      (message == nullptr ? delivered(peer, header.seq)
                          : message->type == MessageType::kRts && message->transfer_id != 0)) {
    ++core_.totals.duplicates_dropped;  // sent again after its path failed
    return;
  }
  if (message == nullptr || message->turn_passed || message->type != MessageType::kRts ||
      !decode_rts_body(body, rts, error)) {
    // Dropping a rendezvous request would leave its sender waiting: say so.
    log::error(
        "multi-rail endpoint {:016x}: malformed or repeated rendezvous request {} from "
        "peer {} ({}); its sender will not complete",
        core_.id, header.seq, peer.id.index, error.empty() ? "bad sequence number" : error);
    ++core_.totals.dropped_messages;
    return;
  }
  message->transfer_id = header.word;
  message->rts = std::move(rts);
  advance(peer);
}

void Receiver::advance(Peer& peer) {
  while (peer.early.next_ready()) {
    const std::uint64_t ordinal = peer.early.delivered();
    auto owned = peer.early.take_next();
    InboundMessage& message = *owned;
    message.turn_passed = true;
    message.ordinal = ordinal;
    peer.current.emplace(ordinal, std::move(owned));
    on_turn(peer, message);
  }
  core_.credits.credit(peer);
}

void Receiver::on_turn(Peer& peer, InboundMessage& message) {
  MatchingEngine& matcher = engine(message.tagged);
  if (Request* request = matcher.take_posted(message)) {
    bind(peer, message, *request);
  } else {
    ++core_.totals.unexpected_messages;
    matcher.add_unexpected(message);
    core_.credits.count_unexpected(peer, message);
  }
}

void Receiver::bind(Peer& peer, InboundMessage& message, Request& request) {
  request.peer_ = message.source;
  request.tag_ = message.tag;
  request.message_length_ = message.total;
  if (message.type == MessageType::kRts) {
    core_.rendezvous.start_pull(peer, message, request);
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

void Receiver::try_finish(Peer& peer, InboundMessage& message) {
  if (message.target == nullptr || message.arrived != message.total) {
    return;
  }
  Request& request = *message.target;
  request.length_ = std::min<std::uint64_t>(message.total, request.capacity_);
  if (message.total > request.capacity_) {
    request.fail(truncated(message.total, request.capacity_, message.source, message.tag));
  }
  peer.current.erase(message.ordinal);  // destroys `message`
  core_.requests.finish(request);
}

Status Receiver::truncated(std::uint64_t message_length, std::uint64_t capacity, PeerId source,
                           std::uint64_t tag) {
  return {StatusCode::kTruncated,
          fmt::format("a {}-byte message from peer {} (tag 0x{:x}) was truncated to the "
                      "{}-byte receive buffer",
                      message_length, source.index, tag, capacity)};
}

Status Receiver::cancel(Request& request) {
  if (request.kind_ != RequestKind::kRecv || request.done() ||
      !engine(request.tagged_).cancel(request)) {
    return {StatusCode::kInvalidArgument,
            "cancel: only a posted receive that has not matched can be canceled"};
  }
  request.fail(Status(StatusCode::kCanceled, "the receive was canceled"));
  core_.requests.finish(request);
  return {};
}

void Receiver::withdraw(Request& request) {
  (void)engine(request.tagged_).cancel(request);
  core_.requests.finish(request);
}

void Receiver::fail_from(Peer& peer) {
  // Receives naming this peer, and messages from it still being assembled.
  fail_posted_from(peer.id, peer.failure);
  // Complete unexpected messages stay receivable; the rest cannot finish.
  std::vector<std::uint64_t> stalled;
  for (auto& [ordinal, message] : peer.current) {
    if (message->target != nullptr) {
      message->target->fail(peer.failure);
      core_.requests.finish(*message->target);
      stalled.push_back(ordinal);
    } else if (message->type == MessageType::kRts || !message->complete()) {
      engine(message->tagged).remove_unexpected(*message);
      core_.credits.uncount_unexpected(peer, *message);
      stalled.push_back(ordinal);
    }
  }
  for (const std::uint64_t ordinal : stalled) {
    peer.current.erase(ordinal);
  }
}

void Receiver::fail_orphaned_wildcards() {
  const Status* failure = core_.peers.every_peer_failed();
  if (failure == nullptr) {
    return;
  }
  // No inserted peer can send any more: a wildcard receive would wait
  // forever. (One matching a message already here was bound at once.)
  fail_posted_from(kAnySource, *failure);
}

void Receiver::fail_posted_from(PeerId source, const Status& status) {
  for (MatchingEngine* matcher : {&tagged_, &untagged_}) {
    while (Request* request = matcher->posted_from(source)) {
      (void)matcher->cancel(*request);
      request->fail(status);
      core_.requests.finish(*request);
    }
  }
}

}  // namespace railyard::mrail::detail
