// The library's own collectives over a communicator, on its internal tag
// (docs/wire-formats.md, "Communicator tags"): what split, dup and windows
// need before the collectives of comm/collectives exist. Every rank calls
// them in the same order, as MPI requires of collectives, and each pair's
// messages stay in order, so consecutive exchanges cannot mix. Each wait
// is bounded by the communicator's timeout (Request::wait_all's default).
#include <array>

#include "railyard/comm/communicator.h"
#include "railyard/comm/detail/group.h"
#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/detail/byte_codec.h"

namespace railyard::comm {

detail::World& Communicator::world_state() const noexcept { return *world_; }

std::vector<std::vector<std::byte>> Communicator::allgather_internal(
    std::span<const std::byte> blob) const {
  const int ranks = size();
  const int me = rank();
  const int right = (me + 1) % ranks;
  const int left = (me + ranks - 1) % ranks;
  std::vector<std::vector<std::byte>> all(static_cast<std::size_t>(ranks));
  all[static_cast<std::size_t>(me)].assign(blob.begin(), blob.end());
  // Ring: at step s, pass on the blob that came from s ranks to the left,
  // its length first, since the receiver cannot know it.
  for (int step = 0; step + 1 < ranks; ++step) {
    const auto outgoing = static_cast<std::size_t>((me - step + ranks) % ranks);
    const auto incoming = static_cast<std::size_t>((me - step - 1 + 2 * ranks) % ranks);
    std::array<std::byte, 8> length_out{};
    std::array<std::byte, 8> length_in{};
    store_le(length_out.data(), all[outgoing].size(), 8);
    std::array<Request, 2> lengths{post_internal_recv(length_in.data(), length_in.size(), left),
                                   post_internal_send(length_out.data(), length_out.size(), right)};
    Request::wait_all(lengths);
    ByteReader length(length_in);
    all[incoming].resize(length.u64());
    std::array<Request, 2> blobs{
        post_internal_recv(all[incoming].data(), all[incoming].size(), left),
        post_internal_send(all[outgoing].data(), all[outgoing].size(), right)};
    Request::wait_all(blobs);
  }
  return all;
}

void Communicator::barrier_internal() const {
  // Dissemination: in round k every rank signals the rank 2^k to its right
  // and waits for the one 2^k to its left; after ceil(log2 n) rounds each
  // has heard, through some chain, from every rank.
  const int ranks = size();
  const int me = rank();
  for (int distance = 1; distance < ranks; distance *= 2) {
    std::array<Request, 2> round{
        post_internal_recv(nullptr, 0, (me - distance % ranks + ranks) % ranks),
        post_internal_send(nullptr, 0, (me + distance) % ranks)};
    Request::wait_all(round);
  }
}

}  // namespace railyard::comm
