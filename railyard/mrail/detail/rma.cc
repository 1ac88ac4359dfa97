#include "railyard/mrail/detail/rma.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"

namespace railyard::mrail::detail {
namespace {

constexpr std::uint8_t kRegionVersion = 1;

}  // namespace

// Blob layout: u8 version, u8 rail count, u16 0, u32 0, u64 length, then per
// rail: u8 rail index, u8 0, u16 key length, key (railyard/rail/detail/remote_key.h).
MultiRegion Rma::register_memory(void* base, std::size_t length) {
  MultiRegion region;
  region.base_ = base;
  region.length_ = length;
  ByteWriter writer(region.remote_key_);
  writer.u8(kRegionVersion);
  writer.u8(core_.rails.size());
  writer.u16(0);
  writer.u32(0);
  writer.u64(length);
  for (std::size_t i = 0; i < core_.rails.size(); ++i) {
    region.rails_.push_back(core_.rails[i].rail->register_memory(base, length));
    writer.u8(i);
    writer.u8(0);
    writer.blob16(region.rails_.back().remote_key());
  }
  return region;
}

RemoteMultiRegion Rma::import_region(PeerId peer_id, std::span<const std::byte> blob) {
  const Peer* peer = core_.peers.find(peer_id);
  if (peer == nullptr) {
    throw Error(fmt::format("import_region: peer {} was never inserted", peer_id.index));
  }
  ByteReader reader(blob);
  const auto version = reader.u8();
  const auto count = reader.u8();
  (void)reader.u16();
  (void)reader.u32();
  const auto length = reader.u64();
  std::vector<std::vector<std::byte>> keys(kMaxRails);
  for (unsigned i = 0; i < count && !reader.failed(); ++i) {
    const auto rail = reader.u8();
    (void)reader.u8();
    auto key = reader.blob16();
    if (rail < kMaxRails) {
      keys[rail] = std::move(key);
    }
  }
  if (reader.failed() || reader.remaining() != 0 || version != kRegionVersion || count == 0) {
    throw Error(
        fmt::format("a {}-byte blob from peer {} is not a multi-rail memory key "
                    "(version {}, {} rails)",
                    blob.size(), peer_id.index, version, count));
  }
  RemoteMultiRegion region;
  region.peer_ = peer_id;
  region.length_ = length;
  for (const auto& path : peer->paths) {
    if (keys[path.remote_rail].empty()) {
      throw Error(fmt::format("memory key from peer {} has no key for its rail {}", peer_id.index,
                              path.remote_rail));
    }
    region.paths_.push_back(std::make_shared<const rail::RemoteRegion>(
        core_.rails[path.local_rail].rail->import_region(keys[path.remote_rail])));
    if (region.paths_.back()->length() != length) {
      throw Error(
          fmt::format("memory key from peer {} covers {} bytes on its rail {} but {} "
                      "overall",
                      peer_id.index, region.paths_.back()->length(), path.remote_rail, length));
    }
  }
  return region;
}

Status Rma::start(Request& request, RequestKind kind, const Local& local,
                  const RemoteMultiRegion& remote, std::uint64_t remote_offset, std::size_t size) {
  const char* what = to_string(kind);
  if (request.in_flight()) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{}: the request is already in flight", what)};
  }
  if (auto status = core_.peers.check(remote.peer_, what); !status.ok()) {
    return status;
  }
  if (local.region != nullptr && local.region->rails_.size() != core_.rails.size()) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{}: the local region was not registered with this endpoint", what)};
  }
  const std::uint64_t local_length = local.region != nullptr ? local.region->length_ : size;
  if (local.region_offset > local_length || size > local_length - local.region_offset ||
      remote_offset > remote.length_ || size > remote.length_ - remote_offset) {
    return {
        StatusCode::kInvalidArgument,
        fmt::format("{} of {} bytes from offset {} to offset {} exceeds the local ({} bytes) "
                    "or remote ({} bytes) region",
                    what, size, local.region_offset, remote_offset, local_length, remote.length_)};
  }
  Peer& peer = *core_.peers.find(remote.peer_);
  std::vector<StripePiece> pieces;
  if (size != 0) {
    peer.split(size, pieces);
  }
  std::byte* const data = local.data + local.region_offset;
  auto transfer = std::make_unique<LargeTransfer>();
  transfer->peer = peer.id;
  transfer->lease_by_rail.assign(core_.rails.size(), -1);
  RmaTarget& target = transfer->rma.emplace();
  target.regions = remote.paths_;
  target.offset = remote_offset;
  target.writes = kind == RequestKind::kPut;
  // With failover, a put completes only once in the peer's memory: a path
  // that fails later then cannot take with it writes the caller was told
  // had completed, and a flush over the paths left still covers them all.
  target.confirm_delivery = target.writes && peer.guarded;
  if (local.region != nullptr) {
    for (const auto& region : local.region->rails_) {
      target.local_descriptors.push_back(region.descriptor());
    }
  } else {
    // An unregistered buffer is registered on each rail the pieces use
    // before anything starts, so a refused registration starts nothing.
    try {
      for (const auto& piece : pieces) {
        const std::size_t rail = peer.paths[piece.path].local_rail;
        (void)transfer->lease_on(transfer->lease_by_rail, rail, *core_.rails[rail].cache, data,
                                 size);
      }
    } catch (const Error& error) {
      return {StatusCode::kIoError,
              fmt::format("{}: registering the local buffer: {}", what, error.what())};
    }
  }
  request.start(kind, remote.peer_, data, size);
  request.length_ = size;
  request.large_ = std::move(transfer);
  core_.requests.track(request);
  // In chunks over every path, as a rendezvous pull reads: a path that
  // fails hands what it has not moved to the others.
  core_.lanes.start(peer, request, pieces);
  return {};
}

Status Rma::flush(Request& request, const RemoteMultiRegion& remote) {
  if (request.in_flight()) {
    return {StatusCode::kInvalidArgument, "flush: the request is already in flight"};
  }
  if (auto status = core_.peers.check(remote.peer_, "flush"); !status.ok()) {
    return status;
  }
  if (remote.length_ == 0) {
    return {StatusCode::kInvalidArgument, "flush: the remote region is empty"};
  }
  Peer& peer = *core_.peers.find(remote.peer_);
  request.start(RequestKind::kFlush, remote.peer_, nullptr, 0);
  request.large_ = std::make_unique<LargeTransfer>();
  request.large_->peer = peer.id;
  core_.requests.track(request);
  // A read issued after writes on the same path completes only once they
  // have landed (FI_ORDER_RAW, which every rail is opened with).
  request.pending_ = 1;
  for (const std::size_t p : peer.live) {
    Path& path = peer.paths[p];
    RailState& state = core_.rails[path.local_rail];
    auto op = std::make_unique<PieceOp>(core_, request, path.local_rail, 1, PieceKind::kFlush);
    op->set_path(path);
    const Status posted = state.rail->post_read(*op, path.address, state.scratch_region.slice(0, 1),
                                                *remote.paths_[p], 0);
    if (!TransferLanes::adopt_piece(request, std::move(op), posted)) {
      break;
    }
    // Counted with the path's reads: a read a dead link holds is found
    // (PathMonitor::check) and ended by a rail reset.
    ++path.pull_bytes_in_flight;
  }
  core_.lanes.piece_done(request, Status());
  return {};
}

Status Rma::flush_over_failed_path(const PieceOp& op) const {
  const rail::Rail& rail = *core_.rails[op.rail()].rail;
  if (rail.confirms_writes()) {
    return {};
  }
  return {StatusCode::kIoError,
          fmt::format("flush: the path over rail {} went down during the flush, and provider {} "
                      "does not confirm delivery of writes (FI_DELIVERY_COMPLETE): writes that "
                      "completed over it may not have reached the peer",
                      rail.name(), rail.limits().provider)};
}

}  // namespace railyard::mrail::detail
