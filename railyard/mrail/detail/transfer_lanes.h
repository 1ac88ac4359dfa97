// The one-sided transfers of a multi-rail endpoint: a rendezvous pull, a
// get or a put moves over one lane per path, in chunks of at most the
// path's pull_chunk, posted while the path has room (Path::has_room_for),
// first come first served; a path with nothing left to move takes over the
// last chunks of the lane furthest behind. A path that fails hands what it
// has not moved to the paths left. Every chunk counts one piece of its
// request until it completes; the last piece finishes the request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/mrail/detail/large_transfer.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/request.h"
#include "railyard/mrail/stripe_plan.h"

namespace railyard::mrail::detail {

struct Core;

class TransferLanes {
 public:
  explicit TransferLanes(Core& core) noexcept : core_(core) {}

  // Lanes for `pieces` of the request's transfer (its LargeTransfer set
  // up), queued on their paths and pumped; finishes the request at once
  // when none can start.
  void start(Peer& peer, Request& request, std::span<const StripePiece> pieces);
  // Keeps a piece the rail accepted with its request, counting it; or
  // records why the rail refused it. Returns whether it was accepted.
  static bool adopt_piece(Request& request, std::unique_ptr<PieceOp> op, const Status& posted);
  // A chunk (or a flush's read) completed.
  void on_piece(PieceOp& op, const rail::Completion& completion);
  // One piece of the request finished (status: how); the last finishes it.
  void piece_done(Request& request, const Status& status);

  // Path `dead` went down: the shares waiting for it move to the peer's
  // other paths.
  void rescue(Peer& peer, Path& dead);
  // The peer failed: transfers waiting for room on its paths read nothing
  // more.
  void end_waiting(const Peer& peer);
  // A request destroyed in flight: its chunks not posted go, and the
  // operations the provider has not completed keep their memory (the
  // transfer) until it has.
  void orphan(Request& request) noexcept;
  [[nodiscard]] std::size_t orphans() const noexcept { return orphans_.size(); }
  // Lets go of the orphans' memory (closing, once the rails are closed).
  void drop_orphans() noexcept { orphans_.clear(); }

 private:
  // Posts the chunks of the lanes waiting on `path`, while they fit.
  void pump(Path& path);
  void help_other_paths(Path& idle);
  // Posts `length` bytes of lane `from_lane`'s share (its next chunk when
  // it is `lane`, else its last) over `lane`'s path; a chunk whose post
  // fails ends its request's transfer.
  [[nodiscard]] bool post_chunk(Path& path, Request& request, std::size_t lane,
                                std::size_t from_lane, std::uint64_t length);
  // A lane reading (or writing) [begin, end) of the message over `path`;
  // false (the request failed) when its keys or registration are missing.
  [[nodiscard]] bool add_lane(Peer& peer, Request& request, std::size_t path, std::uint64_t begin,
                              std::uint64_t end);
  // [begin, end) over the peer's paths up, as new lanes.
  [[nodiscard]] bool spread(Peer& peer, Request& request, std::uint64_t begin, std::uint64_t end);
  // A chunk moved over `dead` failed: moved again over the paths left.
  [[nodiscard]] bool move_again(Path& dead, Request& request, std::uint64_t offset,
                                std::uint64_t length);
  // Takes the chunks never posted out of the request's count and ends
  // every lane; takes the request's turns off its paths' queues.
  void drop_unposted(Request& request) noexcept;
  static void drop_turns(Core& core, const Request& request) noexcept;
  // Fails the request's transfer, finishing it when nothing of it is in
  // flight any more.
  void end(Request& request, const Status& status);
  void pieces_done(Request& request);
  // Whether a transfer counted done still has chunks in flight (a
  // miscount): then it stays open until they complete.
  bool held_open(Request& request);
  void on_orphan_piece(PieceOp& op) noexcept;

  Core& core_;
  // Transfers of requests destroyed in flight, kept until the provider has
  // completed every operation they posted.
  std::vector<std::unique_ptr<LargeTransfer>> orphans_;
};

}  // namespace railyard::mrail::detail
