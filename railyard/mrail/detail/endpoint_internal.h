// The parts of a multi-rail endpoint that its implementation files share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "railyard/mrail/counters.h"
#include "railyard/mrail/detail/registration_cache.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/endpoint.h"
#include "railyard/rail/detail/background_progress.h"
#include "railyard/rail/rail.h"
#include "railyard/shm/region_guard.h"

namespace railyard::mrail {

// The endpoint's place in the process's background-progress thread.
class Endpoint::BackgroundTurn final : public rail::BackgroundTask {
 public:
  BackgroundTurn(Endpoint& endpoint, std::chrono::milliseconds period)
      : endpoint_(endpoint), progress_(rail::BackgroundProgress::shared()) {
    progress_->add(this, period);
  }
  // Returns once no turn is using the endpoint.
  ~BackgroundTurn() override { progress_->remove(this); }
  BackgroundTurn(const BackgroundTurn&) = delete;
  BackgroundTurn& operator=(const BackgroundTurn&) = delete;
  BackgroundTurn(BackgroundTurn&&) = delete;
  BackgroundTurn& operator=(BackgroundTurn&&) = delete;

  void background_turn() override { endpoint_.background_turn(); }

 private:
  Endpoint& endpoint_;
  std::shared_ptr<rail::BackgroundProgress> progress_;
};

// A pre-posted receive buffer: header plus one fragment.
class Endpoint::RxSlot final : public rail::RailOp {
 public:
  RxSlot(Endpoint& endpoint, std::size_t rail, std::byte* data, std::size_t size)
      : endpoint_(endpoint), rail_(rail), data_(data), size_(size) {}
  [[nodiscard]] std::size_t rail() const noexcept { return rail_; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 protected:
  void on_complete(const rail::Completion& completion) override {
    endpoint_.on_receive(*this, completion);
  }

 private:
  Endpoint& endpoint_;
  std::size_t rail_;
  std::byte* data_;
  std::size_t size_;
};

// A registered send buffer, lent to one outgoing fragment at a time.
class Endpoint::TxSlot final : public rail::RailOp {
 public:
  TxSlot(Endpoint& endpoint, std::size_t rail, std::byte* data)
      : endpoint_(endpoint), rail_(rail), data_(data) {}
  [[nodiscard]] std::size_t rail() const noexcept { return rail_; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }

  Request* owner = nullptr;  // nullptr for control messages
  PeerId peer;

 protected:
  void on_complete(const rail::Completion& completion) override { endpoint_.on_sent(*this, completion); }

 private:
  Endpoint& endpoint_;
  std::size_t rail_;
  std::byte* data_;
};

// A chunk of a lane (LargeTransfer::PullLane), read (a rendezvous pull or a
// get) or written (a put); or one read of a flush.
enum class PieceKind : std::uint8_t { kRead, kWrite, kFlush };

// One RMA operation of a rendezvous pull, an RMA request or a flush.
class Endpoint::PieceOp final : public rail::RailOp {
 public:
  PieceOp(Endpoint& endpoint, Request& request, std::size_t rail, std::uint64_t bytes,
          PieceKind kind, std::uint64_t offset = 0)
      : endpoint_(endpoint),
        request_(&request),
        rail_(rail),
        bytes_(bytes),
        offset_(offset),
        kind_(kind) {}
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
  void on_complete(const rail::Completion& completion) override { endpoint_.on_piece(*this, completion); }

 private:
  Endpoint& endpoint_;
  Request* request_;
  std::size_t rail_;
  std::uint64_t bytes_;
  std::uint64_t offset_;
  PieceKind kind_;
  Path* path_ = nullptr;
  bool completed_ = false;
};

// A fragment or control message waiting for a send buffer.
struct Endpoint::Outgoing {
  Header header;
  rail::RailPeer destination;
  PeerId peer;
  const std::byte* payload = nullptr;  // eager payload in the user's buffer
  std::size_t length = 0;
  std::vector<std::byte> body;  // or a body owned here (rendezvous request)
  Request* owner = nullptr;     // nullptr for control messages
};

struct Endpoint::RailState {
  // "198.18.1.0/24"; for the host rail "host:" and the host's name.
  std::string network;
  bool host_only = false;  // the host rail: reaches peers on this host only
  // A path of some inserted peer runs through it (peers are never removed,
  // so this only turns true; see Endpoint::mark_peerless_rails).
  bool reaches_peer = false;
  // Slot memory is left uninitialised: the provider or the sender writes
  // every byte before it is read. The receive and send buffers are faulted
  // in at open without being written (see Endpoint::open_rail).
  std::unique_ptr<std::byte[]> receive_memory;
  std::unique_ptr<std::byte[]> send_memory;
  std::unique_ptr<std::byte[]> scratch_memory;  // target of flush reads
  rail::LocalRegion receive_region;
  rail::LocalRegion send_region;
  rail::LocalRegion scratch_region;
  std::vector<std::unique_ptr<RxSlot>> receive_slots;
  std::vector<std::unique_ptr<TxSlot>> send_slots;
  std::vector<TxSlot*> free_slots;
  std::vector<std::byte> inject_scratch;  // see Endpoint::emit
  // Receive buffers handled and not yet reposted (see Endpoint::repost).
  std::vector<RxSlot*> to_repost;
  std::deque<Outgoing> queue;
  std::unique_ptr<RegistrationCache> cache;
  RailTraffic traffic;
  // Why the rail is to be reset, once one is scheduled (Endpoint::reset_rails).
  std::optional<std::string> reset_due;
  // Reset even with no read or write held on it (Endpoint::reset_rail).
  bool reset_required = false;
  // The host rail's /dev/shm region, removed if a fatal signal ends us.
  std::unique_ptr<shm::RegionGuard> region_guard;
  // Last, so it closes first: nothing it still references goes before it.
  std::unique_ptr<rail::Rail> rail;
};

}  // namespace railyard::mrail

namespace railyard::mrail {

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
  // a path that fails afterwards cannot lose them (Endpoint::start_rma).
  bool confirm_delivery = false;
};

// What a rendezvous or RMA request holds while in flight.
struct LargeTransfer {
  // One path's share of a pull, a get or a put: read (written, for a put)
  // in chunks of at most the path's pull_chunk, posted while the path has
  // room (Endpoint::pump_pulls).
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
  // can hand its share to another (Endpoint::add_lane), and the lease of
  // each local rail in `leases` (lease_by_rail, -1: none yet).
  std::vector<RtsBody::Key> keys;
  std::vector<int> lease_by_rail;
  std::vector<RegistrationCache::Lease> leases;
  std::vector<std::shared_ptr<const rail::RemoteRegion>> remotes;
  std::vector<PullLane> lanes;
  std::optional<RmaTarget> rma;              // a put's or get's
  std::vector<std::unique_ptr<rail::RailOp>> ops;  // each an Endpoint::PieceOp
  // Once orphaned (its request destroyed in flight): the ops the provider
  // has not completed yet.
  std::size_t outstanding = 0;
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

}  // namespace railyard::mrail
