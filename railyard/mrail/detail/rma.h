// One-sided transfers of a multi-rail endpoint: memory registered on every
// rail as one region whose key names each rail's, a peer's key imported for
// each path to it, and puts, gets and flushes striped over the paths
// (TransferLanes moves their data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "railyard/common/status.h"
#include "railyard/mrail/detail/large_transfer.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/mrail/regions.h"
#include "railyard/mrail/request.h"

namespace railyard::mrail::detail {

struct Core;

class Rma {
 public:
  explicit Rma(Core& core) noexcept : core_(core) {}

  [[nodiscard]] MultiRegion register_memory(void* base, std::size_t length);
  // Throws Error for a malformed key blob or one lacking the peer's rails.
  [[nodiscard]] RemoteMultiRegion import_region(PeerId peer, std::span<const std::byte> blob);

  // The local side of a one-sided transfer: a registered region, or any
  // buffer (region null) registered through the rails' caches.
  struct Local {
    std::byte* data = nullptr;
    const MultiRegion* region = nullptr;
    std::uint64_t region_offset = 0;
  };
  // A put (kPut) or get (kGet) of `size` bytes between `local` and
  // `remote` at `remote_offset`.
  [[nodiscard]] Status start(Request& request, RequestKind kind, const Local& local,
                             const RemoteMultiRegion& remote, std::uint64_t remote_offset,
                             std::size_t size);
  // Completes once every put to `remote` that completed before the call has
  // landed in the peer's memory, on every path.
  [[nodiscard]] Status flush(Request& request, const RemoteMultiRegion& remote);
  // A flush's read that failed because its path went down: what that path
  // wrote is in the peer's memory if the rail confirmed delivery of its
  // writes (nothing left to flush there), else unknown (an error).
  [[nodiscard]] Status flush_over_failed_path(const PieceOp& op) const;

 private:
  Core& core_;
};

}  // namespace railyard::mrail::detail
