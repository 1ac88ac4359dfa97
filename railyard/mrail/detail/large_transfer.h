// What a rendezvous pull, a put or a get holds while in flight: the lanes
// it moves over (one per path, read or written in chunks), the keys and
// registrations they use, and every provider operation it posted.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "railyard/mrail/detail/registration_cache.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/rail/rail.h"

namespace railyard::mrail {
class Request;
struct Path;
}  // namespace railyard::mrail

namespace railyard::mrail::detail {

struct Core;

// A chunk of a lane (LargeTransfer::PullLane), read (a rendezvous pull or a
// get) or written (a put); or one read of a flush.
enum class PieceKind : std::uint8_t { kRead, kWrite, kFlush };

// One RMA operation of a rendezvous pull, an RMA request or a flush.
class PieceOp final : public rail::RailOp {
 public:
  PieceOp(Core& core, Request& request, std::size_t rail, std::uint64_t bytes, PieceKind kind,
          std::uint64_t offset = 0)
      : core_(core), request_(&request), rail_(rail), bytes_(bytes), offset_(offset), kind_(kind) {}
  // nullptr once its request was destroyed in flight (an orphan's piece).
  [[nodiscard]] Request* request() const noexcept { return request_; }
  void detach() noexcept { request_ = nullptr; }
  // Whether the provider has reported its completion.
  [[nodiscard]] bool completed() const noexcept { return completed_; }
  void mark_completed() noexcept { completed_ = true; }
  [[nodiscard]] std::size_t rail() const noexcept { return rail_; }
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }
  // Where a lane's chunk starts in the transfer.
  [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }
  [[nodiscard]] PieceKind kind() const noexcept { return kind_; }
  // The path it goes over (a peer's paths never move), whose window it
  // holds room in while in flight (Path::pull_bytes_in_flight).
  [[nodiscard]] Path* path() const noexcept { return path_; }
  void set_path(Path& path) noexcept { path_ = &path; }

 protected:
  // May destroy this op (it belongs to the request's LargeTransfer): nothing
  // runs after the call.
  void on_complete(const rail::Completion& completion) override;

 private:
  Core& core_;
  Request* request_;
  std::size_t rail_;
  std::uint64_t bytes_;
  std::uint64_t offset_;
  PieceKind kind_;
  Path* path_ = nullptr;
  bool completed_ = false;
};

// A put's or get's target, kept so that a path that fails can hand its share
// to another: the peer's region on each of its paths (shared: the request
// does not depend on the caller's RemoteMultiRegion), the offset of byte 0
// of the transfer in it, and the local region's descriptor on each rail
// (empty for a buffer leased from the registration cache).
struct RmaTarget {
  std::vector<std::shared_ptr<const rail::RemoteRegion>> regions;  // by path index
  std::uint64_t offset = 0;
  std::vector<void*> local_descriptors;  // by rail
  bool writes = false;                   // a put
  // Writes complete only once in the peer's memory (FI_DELIVERY_COMPLETE):
  // a path that fails afterwards cannot lose them (Rma::start).
  bool confirm_delivery = false;
};

// What a rendezvous or RMA request holds while in flight.
struct LargeTransfer {
  // One path's share of a pull, a get or a put: read (written, for a put)
  // in chunks of at most the path's pull_chunk, posted while the path has
  // room (TransferLanes::pump).
  struct PullLane {
    std::size_t path = 0;  // in the peer's paths
    std::size_t rail = 0;  // local rail
    rail::RailPeer address;
    std::uint64_t chunk = 0;       // bytes per read (Path::pull_chunk); 0: the share whole
    void* descriptor = nullptr;    // of the local buffer's registration on `rail`
    std::size_t remote = 0;        // index in `remotes`
    std::uint64_t key_offset = 0;  // the remote key's offset of message byte 0
    std::uint64_t next = 0;        // the message offset of the next chunk to post
    std::uint64_t end = 0;         // the message offset the lane ends at

    // Chunks not posted yet.
    [[nodiscard]] std::uint64_t chunks_left() const noexcept {
      const std::uint64_t left = end - next;
      if (left == 0) {
        return 0;
      }
      return chunk == 0 ? 1 : (left + chunk - 1) / chunk;
    }
    // The size of the next chunk to post.
    [[nodiscard]] std::uint64_t next_chunk() const noexcept {
      const std::uint64_t left = end - next;
      return chunk == 0 ? left : std::min(left, chunk);
    }
    // The size of the last chunk not posted yet, as the lane would cut it
    // (0 when none is left): what another path may take over.
    [[nodiscard]] std::uint64_t last_chunk() const noexcept {
      const std::uint64_t left = end - next;
      if (left == 0 || chunk == 0) {
        return left;
      }
      const std::uint64_t rest = left % chunk;
      return rest == 0 ? chunk : rest;
    }
  };

  [[nodiscard]] bool all_posted() const noexcept {
    return std::all_of(lanes.begin(), lanes.end(),
                       [](const PullLane& lane) { return lane.next == lane.end; });
  }

  // The lane reading over `path` (an index in the peer's paths), or
  // lanes.size() when the message has none there.
  [[nodiscard]] std::size_t lane_on(std::size_t path) const noexcept {
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      if (lanes[i].path == path) {
        return i;
      }
    }
    return lanes.size();
  }

  std::uint64_t transfer_id = 0;
  PeerId peer;
  // A pull's memory keys of the sender's rails, kept so a path that fails
  // can hand its share to another (TransferLanes::add_lane), and the lease of
  // each local rail in `leases` (lease_by_rail, -1: none yet).
  std::vector<RtsBody::Key> keys;
  std::vector<int> lease_by_rail;
  std::vector<RegistrationCache::Lease> leases;
  std::vector<std::shared_ptr<const rail::RemoteRegion>> remotes;
  std::vector<PullLane> lanes;
  std::optional<RmaTarget> rma;                    // a put's or get's
  std::vector<std::unique_ptr<rail::RailOp>> ops;  // each a PieceOp
  // Once orphaned (its request destroyed in flight): the ops the provider
  // has not completed yet.
  std::size_t outstanding = 0;
  // A pull's bytes read over each of the sender's rails (by its rail
  // index), for the FIN: the sender counts them as sent.
  std::vector<std::uint64_t> read_from_rail;
  // A read of it was ended by a rail reset: its sender's keys may still be
  // used by that read's request, sent before the reset and arriving late,
  // so the FIN asks the sender to revoke them (kFlagRevokeKeys).
  bool reads_reset = false;

  // The index in `leases` of the lease of [buffer, buffer + size) on
  // `rail`, taken from the rail's `cache` the first time it is asked for
  // (lease_of_rail: an index by rail, -1 until then). Throws Error when
  // the registration is refused.
  std::size_t lease_on(std::vector<int>& lease_of_rail, std::size_t rail, RegistrationCache& cache,
                       std::byte* buffer, std::size_t size) {
    if (lease_of_rail[rail] < 0) {
      lease_of_rail[rail] = static_cast<int>(leases.size());
      leases.push_back(cache.acquire(buffer, size));
    }
    return static_cast<std::size_t>(lease_of_rail[rail]);
  }
};

}  // namespace railyard::mrail::detail
