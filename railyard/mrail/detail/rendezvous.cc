#include "railyard/mrail/detail/rendezvous.h"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {

void Rendezvous::send(Peer& peer, Request& request, Header header) {
  ++core_.totals.rendezvous_messages;
  auto large = std::make_unique<LargeTransfer>();
  large->transfer_id = next_transfer_id_++;
  large->peer = peer.id;
  RtsBody body;
  body.policy = core_.options.policies.policy_for(request.capacity_);
  // The rail to pull from (fixed, round-robin) or the first of a striped
  // split (the receiver splits from there). The RTS travels on it too: a
  // window of rendezvous messages then spreads its requests over the rails
  // as it spreads its data, instead of queueing every request on the home
  // rail, which would then carry more than the others and set the pace of
  // all.
  const std::size_t preferred = body.policy == Policy::kFixed ? peer.home() : peer.take_next_path();
  body.preferred_rail = static_cast<std::uint8_t>(peer.paths[preferred].local_rail);
  try {
    std::vector<bool> registered(core_.rails.size(), false);
    for (const auto& path : peer.paths) {
      if (registered[path.local_rail]) {
        continue;
      }
      registered[path.local_rail] = true;
      auto lease = core_.rails[path.local_rail].cache->acquire(request.buffer_, request.capacity_);
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
    core_.requests.finish(request);
    return;
  }
  header.type = MessageType::kRts;
  header.word = large->transfer_id;
  sends_.emplace(large->transfer_id, &request);
  request.large_ = std::move(large);
  // Done when the request-to-send has gone and the receiver's FIN came back.
  request.pending_ = 2;

  const Path& path = peer.paths[preferred];
  ++core_.rails[path.local_rail].traffic.messages_sent;
  Outgoing rts;
  rts.header = header;
  rts.destination = path.address;
  rts.peer = peer.id;
  rts.body = encode_rts_body(body);
  rts.owner = &request;
  core_.sender.enqueue(path.local_rail, std::move(rts));
}

void Rendezvous::on_fin(Peer& peer, const Header& header, std::span<const std::byte> body,
                        std::size_t rail) {
  const auto it = sends_.find(header.word);
  if (it == sends_.end()) {
    if (header.path_seq != 0) {
      ++core_.totals.duplicates_dropped;  // sent again after its path failed
      return;
    }
    core_.drop(rail,
               fmt::format("FIN from peer {} for unknown transfer {}", peer.id.index, header.word));
    return;
  }
  if (it->second->large_->peer != peer.id) {
    // Transfer ids are ours, so only the peer we sent to may end one.
    core_.drop(rail, fmt::format("FIN from peer {} for transfer {}, which went to peer {}",
                                 peer.id.index, header.word, it->second->large_->peer.index));
    return;
  }
  Request& request = *it->second;
  sends_.erase(it);
  count_reads(peer, body);
  if ((header.flags & kFlagRevokeKeys) != 0) {
    // A read the peer's rail reset ended may still be on its way here.
    for (auto& lease : request.large_->leases) {
      lease.revoke();
    }
  }
  core_.lanes.piece_done(request, Status());
}

void Rendezvous::start_pull(Peer& peer, InboundMessage& message, Request& request) {
  const std::uint64_t bytes = std::min<std::uint64_t>(message.total, request.capacity_);
  auto large = std::make_unique<LargeTransfer>();
  large->transfer_id = message.transfer_id;
  large->peer = peer.id;
  RtsBody rts = std::move(message.rts);
  peer.current.erase(message.ordinal);  // destroys `message`
  request.length_ = bytes;
  request.large_ = std::move(large);
  if (request.message_length_ > request.capacity_) {
    request.fail(
        Receiver::truncated(request.message_length_, request.capacity_, peer.id, request.tag_));
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
  transfer.lease_by_rail.assign(core_.rails.size(), -1);
  // A truncated receive still reads what fits: only a failed post stops it.
  core_.lanes.start(peer, request, pieces);
}

void Rendezvous::transfer_done(Request& request) {
  if (request.kind_ == RequestKind::kRecv) {
    // Pulled (or failed to): the sender may let go of its buffer.
    Peer* peer = core_.peers.find(request.large_->peer);
    if (peer != nullptr && !peer->failed) {
      Header fin;
      fin.type = MessageType::kFin;
      fin.flags = request.large_->reads_reset ? kFlagRevokeKeys : 0;
      fin.source = core_.id;
      fin.word = request.large_->transfer_id;
      // Back on the path the message's first piece came by (its RTS's, see
      // send()), so FINs spread over the rails as their messages did (the
      // home path when that one is down, or when nothing was read).
      const auto& lanes = request.large_->lanes;
      FinBody body;
      const auto& read = request.large_->read_from_rail;
      for (std::size_t rail = 0; rail < read.size(); ++rail) {
        if (read[rail] != 0) {
          body.reads.push_back(FinBody::Read{static_cast<std::uint8_t>(rail), read[rail]});
        }
      }
      core_.sender.send_control(
          *peer, fin,
          lanes.empty() ? peer->home() : FailoverLog::reply_path(*peer, lanes.front().rail),
          encode_fin_body(body));
    }
  } else if (request.kind_ == RequestKind::kSend) {
    sends_.erase(request.large_->transfer_id);
  }
}

void Rendezvous::count_reads(const Peer& peer, std::span<const std::byte> body) {
  FinBody reads;
  std::string error;
  if (!decode_fin_body(body, reads, error)) {
    // The send is done all the same: only what its rails carried goes
    // uncounted.
    log::error("multi-rail endpoint {:016x}: a FIN from peer {}: {}; its bytes go uncounted",
               core_.id, peer.id.index, error);
    return;
  }
  for (const FinBody::Read& read : reads.reads) {
    if (read.rail < core_.rails.size()) {
      RailTraffic& traffic = core_.rails[read.rail].traffic;
      traffic.bytes_sent += read.bytes;
    }
  }
}

std::vector<bool> Rendezvous::peers_awaited(std::size_t peers) const {
  std::vector<bool> awaited(peers, false);
  for (const auto& [transfer, request] : sends_) {
    if (request->peer().index < awaited.size()) {
      awaited[request->peer().index] = true;
    }
  }
  return awaited;
}

void Rendezvous::fail_sends_to(const Peer& peer) {
  // Rendezvous sends waiting for a FIN that will not come: that piece ends.
  std::vector<Request*> orphans;
  for (const auto& [transfer, request] : sends_) {
    if (request->peer_ == peer.id) {
      orphans.push_back(request);
    }
  }
  for (Request* request : orphans) {
    sends_.erase(request->large_->transfer_id);
    core_.lanes.piece_done(*request, peer.failure);
  }
}

}  // namespace railyard::mrail::detail
