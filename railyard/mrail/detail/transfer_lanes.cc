#include "railyard/mrail/detail/transfer_lanes.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {

void PieceOp::on_complete(const rail::Completion& completion) {
  core_.lanes.on_piece(*this, completion);
}

void TransferLanes::start(Peer& peer, Request& request, std::span<const StripePiece> pieces) {
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
    pump(peer.paths[lane.path]);
  }
  piece_done(request, Status());
}

bool TransferLanes::add_lane(Peer& peer, Request& request, std::size_t path_index,
                             std::uint64_t begin, std::uint64_t end) {
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
                            *core_.rails[path.local_rail].cache, request.buffer_, request.length_);
      lane.descriptor = transfer.leases[lease].region().descriptor();
    }
    transfer.remotes.push_back(key != nullptr
                                   ? std::make_shared<const rail::RemoteRegion>(
                                         core_.rails[path.local_rail].rail->import_region(key->key))
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

void TransferLanes::pump(Path& path) {
  if (!path.up) {
    return;  // its shares moved to the paths left (rescue)
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
      ++core_.totals.pull_stalls;
      return;
    }
    // A failed post, and the post of a message's last chunk, take the
    // request's turns off every queue (end, drop_turns); a lane done
    // otherwise leaves on the next turn of the loop.
    (void)post_chunk(path, *turn.request, turn.lane, turn.lane, length);
  }
  if (path.pull_bytes_in_flight == 0 && path.pull_chunk != 0) {
    help_other_paths(path);
  }
}

void TransferLanes::help_other_paths(Path& idle) {
  Peer* peer = core_.peers.find(idle.peer);
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
    (void)post_chunk(idle, *request, thief, victim, length);
  }
}

bool TransferLanes::post_chunk(Path& path, Request& request, std::size_t lane_index,
                               std::size_t from_lane, std::uint64_t length) {
  LargeTransfer& transfer = *request.large_;
  const LargeTransfer::PullLane& lane = transfer.lanes[lane_index];
  LargeTransfer::PullLane& source = transfer.lanes[from_lane];
  // Its own share from the front, another's from the back.
  const std::uint64_t offset = from_lane == lane_index ? source.next : source.end - length;
  const bool writes = transfer.rma && transfer.rma->writes;
  auto op = std::make_unique<PieceOp>(core_, request, lane.rail, length,
                                      writes ? PieceKind::kWrite : PieceKind::kRead, offset);
  op->set_path(path);
  rail::Rail& rail = *core_.rails[lane.rail].rail;
  const rail::MutableBuffer local{request.buffer_ + offset, length, lane.descriptor};
  const rail::RemoteRegion& remote = *transfer.remotes[lane.remote];
  const Status posted =
      writes ? rail.post_write(*op, lane.address, local, remote, lane.key_offset + offset,
                               transfer.rma->confirm_delivery)
             : rail.post_read(*op, lane.address, local, remote, lane.key_offset + offset);
  if (!posted.ok()) {
    end(request, posted);  // may finish the request
    return false;
  }
  if (from_lane == lane_index) {
    source.next += length;
  } else {
    source.end -= length;
    ++core_.totals.pull_chunks_moved;
  }
  path.pull_bytes_in_flight += length;
  if (writes) {
    path.write_bytes_in_flight += length;
  }
  core_.totals.pull_bytes_in_flight_peak =
      std::max(core_.totals.pull_bytes_in_flight_peak, path.pull_bytes_in_flight);
  transfer.ops.push_back(std::move(op));
  if (transfer.all_posted()) {
    // Every chunk is posted: no turn of the request may outlive it in a
    // queue (a lane whose last chunks another path took over still has one
    // on its path, which may be full of other reads for a while).
    drop_turns(core_, request);
  }
  return true;
}

void TransferLanes::drop_turns(Core& core, const Request& request) noexcept {
  Peer* peer = core.peers.find(request.large_->peer);
  if (peer == nullptr) {
    return;
  }
  for (const auto& lane : request.large_->lanes) {
    std::erase_if(peer->paths[lane.path].waiting_pulls,
                  [&](const PullTurn& turn) { return turn.request == &request; });
  }
}

void TransferLanes::drop_unposted(Request& request) noexcept {
  for (auto& lane : request.large_->lanes) {
    request.pending_ -= static_cast<std::uint32_t>(lane.chunks_left());
    lane.next = lane.end;
  }
  drop_turns(core_, request);
}

void TransferLanes::end(Request& request, const Status& status) {
  request.fail(status);
  drop_unposted(request);
  if (request.pending_ == 0) {
    pieces_done(request);
  }
}

bool TransferLanes::adopt_piece(Request& request, std::unique_ptr<PieceOp> op,
                                const Status& posted) {
  if (!posted.ok()) {
    request.fail(posted);
    return false;
  }
  ++request.pending_;
  request.large_->ops.push_back(std::move(op));
  return true;
}

void TransferLanes::on_piece(PieceOp& op, const rail::Completion& completion) {
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
      pump(*path);
    }
    return;
  }
  RailTraffic& traffic = core_.rails[op.rail()].traffic;
  if (!completion.status.ok()) {
    ++traffic.errors;
  } else {
    switch (op.kind()) {
      case PieceKind::kRead:
        traffic.bytes_received += op.bytes();
        ++traffic.chunks_received;
        if (path != nullptr && op.request() != nullptr && op.request()->large_ &&
            op.request()->kind_ == RequestKind::kRecv) {
          auto& read = op.request()->large_->read_from_rail;
          if (read.size() <= path->remote_rail) {
            read.resize(path->remote_rail + 1, 0);
          }
          read[path->remote_rail] += op.bytes();
        }
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
    if (Peer* peer = core_.peers.find(request.peer_); peer != nullptr) {
      PathMonitor::note_activity(*peer, op.rail());  // the peer answered over it
    }
  }
  if (status.code() == StatusCode::kUnreachable) {
    core_.paths.lost_message(request.peer_, op.rail(), status);
  }
  if (op.kind() == PieceKind::kFlush) {
    if (!status.ok() && core_.paths.covered_by_failover(request.peer_, op.rail())) {
      status = core_.rma.flush_over_failed_path(op);
    }
  } else if (path != nullptr) {
    if (status.code() == StatusCode::kCanceled && op.kind() == PieceKind::kRead && request.large_) {
      request.large_->reads_reset = true;  // ended by a rail reset
    }
    if (!status.ok() && request.large_ &&
        core_.paths.covered_by_failover(request.peer_, op.rail())) {
      // Its path is down: move the chunk again over another.
      if (move_again(*path, request, op.offset(), op.bytes())) {
        status = Status();
      }
    }
    if (!status.ok() && request.large_) {
      drop_unposted(request);
    }
    // The path's next chunks go before this one is counted done, so its
    // request cannot finish between the two.
    pump(*path);
  }
  piece_done(request, status);  // may destroy `op`
}

void TransferLanes::piece_done(Request& request, const Status& status) {
  if (!status.ok()) {
    request.fail(status);
  }
  if (--request.pending_ == 0) {
    pieces_done(request);
  }
}

void TransferLanes::pieces_done(Request& request) {
  if (request.large_ && held_open(request)) {
    return;
  }
  if (request.large_ &&
      (request.kind_ == RequestKind::kRecv || request.kind_ == RequestKind::kSend)) {
    core_.rendezvous.transfer_done(request);
  }
  core_.requests.finish(request);
}

bool TransferLanes::held_open(Request& request) {
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
  ++core_.totals.miscounted_transfers;
  log::error(
      "multi-rail endpoint {:016x}: a {} request of {} bytes with peer {} counted its last piece "
      "done with {} chunk(s) still in flight (the first: {} bytes at offset {} on rail {}); it "
      "completes when they do. Please report this.",
      core_.id, to_string(request.kind_), request.capacity_, request.peer_.index, in_flight,
      first->bytes(), first->offset(), first->rail());
  request.pending_ = in_flight;
  return true;
}

void TransferLanes::rescue(Peer& peer, Path& dead) {
  // Shares waiting to be read over the dead path: over the others instead.
  // (Chunks already posted there finish or fail on their own; a failed one
  // is moved again, see move_again().)
  std::vector<Request*> requests;
  for (const PullTurn& turn : dead.waiting_pulls) {
    if (std::find(requests.begin(), requests.end(), turn.request) == requests.end()) {
      requests.push_back(turn.request);
    }
  }
  dead.waiting_pulls.clear();
  for (Request* request : requests) {
    LargeTransfer& transfer = *request->large_;
    // By index, up to the lanes it has now: spread() adds lanes (on the
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
      if (!spread(peer, *request, begin, end)) {
        this->end(*request, request->status());
        break;
      }
    }
  }
}

bool TransferLanes::move_again(Path& dead, Request& request, std::uint64_t offset,
                               std::uint64_t length) {
  Peer* peer = core_.peers.find(request.large_->peer);
  if (peer == nullptr || peer->failed) {
    return false;
  }
  dead.health.pull_bytes_moved += length;
  return spread(*peer, request, offset, offset + length);
}

bool TransferLanes::spread(Peer& peer, Request& request, std::uint64_t begin, std::uint64_t end) {
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
    pump(peer.paths[p]);
  }
  return true;
}

void TransferLanes::on_orphan_piece(PieceOp& op) noexcept {
  for (auto it = orphans_.begin(); it != orphans_.end(); ++it) {
    LargeTransfer& transfer = **it;
    const bool holds = std::any_of(transfer.ops.begin(), transfer.ops.end(),
                                   [&](const auto& owned) { return owned.get() == &op; });
    if (holds) {
      if (--transfer.outstanding == 0) {
        orphans_.erase(it);  // destroys `op`
      }
      return;
    }
  }
}

void TransferLanes::end_waiting(const Peer& peer) {
  std::vector<Request*> pulling;
  for (const Path& path : peer.paths) {
    for (const PullTurn& turn : path.waiting_pulls) {
      if (std::find(pulling.begin(), pulling.end(), turn.request) == pulling.end()) {
        pulling.push_back(turn.request);
      }
    }
  }
  for (Request* request : pulling) {
    end(*request, peer.failure);
  }
}

void TransferLanes::orphan(Request& request) noexcept {
  drop_unposted(request);  // chunks still waiting for their path
  // Operations the provider has not completed keep their memory (the op,
  // and the registrations it reads or writes through) until it has.
  std::size_t outstanding = 0;
  for (auto& op : request.large_->ops) {
    auto& piece = static_cast<PieceOp&>(*op);
    if (!piece.completed()) {
      piece.detach();
      ++outstanding;
    }
  }
  if (outstanding != 0) {
    request.large_->outstanding = outstanding;
    orphans_.push_back(std::move(request.large_));
  }
}

}  // namespace railyard::mrail::detail
