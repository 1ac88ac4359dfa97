// The memory the ranks of one host share for collectives that move data
// through it rather than through messages (a one-host communicator, or the
// ranks of one host in a hierarchical algorithm). It has one or more lanes,
// each with its own barriers, so that chunks may run side by side: per lane
// and rank a flag line (how many of the lane's barriers the rank has
// reached; lane 0's also says what it called), then per lane two sets of
// slots, one slot per rank in each. A lane's chunk uses one set, its next
// chunk the other: a rank may write a set again once every rank has passed
// the barrier after the chunk that used it last, so a chunk needs two
// barriers instead of three (docs/architecture.md, "Host segment").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/datatype.h"
#include "railyard/collectives/selection.h"
#include "railyard/collectives/task.h"
#include "railyard/rail/progress.h"
#include "railyard/shm/shared_segment.h"

namespace railyard::collectives::detail {

// What a rank called, published on its flag line so that every rank can
// check that all called the same (a mismatch would otherwise hang).
struct SegmentCall {
  std::uint64_t count = 0;
  std::uint32_t type = 0;
  std::uint32_t op = 0;

  [[nodiscard]] static SegmentCall of(const CollectiveArgs& args) noexcept {
    return {args.count, static_cast<std::uint32_t>(args.type), static_cast<std::uint32_t>(args.op)};
  }
  friend bool operator==(const SegmentCall&, const SegmentCall&) = default;
};

// A rank whose call differs from this rank's, and what it called.
struct Mismatch {
  int rank = 0;  // of the segment (the host's ranks, in order)
  SegmentCall call;

  // "allreduce: rank 1 called it with 5000 elements of float (sum) where
  // rank 0 called it with 4000 ...", with `local`'s communicator ranks.
  [[nodiscard]] std::string describe(const Channel& local, const SegmentCall& mine) const;
};

class HostSegment {
 public:
  // The bytes of one slot for `ranks` ranks and `lanes` lanes: 512 KiB
  // while the segment stays within 16 MiB, less (in whole pages) beyond.
  [[nodiscard]] static std::size_t slot_bytes_for(int ranks, int lanes) noexcept;
  // The size of the segment of `ranks` ranks and `lanes` lanes with slots
  // of `slot_bytes`.
  [[nodiscard]] static std::size_t bytes_for(int ranks, int lanes, std::size_t slot_bytes) noexcept;

  // Over `memory`, mapped by every one of `ranks` ranks; this one is `rank`.
  // `outside` is the world's (railyard/rail/progress.h): every barrier
  // passed counts there as progress.
  HostSegment(shm::SharedSegment memory, int ranks, int rank, int lanes, std::size_t slot_bytes,
              rail::OutsideWork& outside);

  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int lanes() const noexcept { return static_cast<int>(epochs_.size()); }
  [[nodiscard]] std::size_t slot_bytes() const noexcept { return slot_bytes_; }
  [[nodiscard]] rail::OutsideWork& outside() const noexcept { return *outside_; }
  [[nodiscard]] std::byte* slot(int lane, unsigned set, int rank) const noexcept;
  // The set a lane's next chunk uses (they alternate, call after call).
  [[nodiscard]] unsigned take_set(int lane) noexcept {
    return static_cast<unsigned>(chunks_[static_cast<std::size_t>(lane)]++ % 2);
  }

  // Publishes what this rank called; call() reads another rank's, and
  // mismatch() finds the first rank whose call is not `mine`, from the
  // call's first barrier to its end. Calls alternate between two places on
  // the line, as chunks between slot sets: a rank describes its call after
  // next only once past its next call's first barrier, which every rank
  // reaches only after leaving this call.
  void describe(const SegmentCall& call) noexcept;
  [[nodiscard]] SegmentCall call(int rank) const noexcept;
  [[nodiscard]] std::optional<Mismatch> mismatch(const SegmentCall& mine) const noexcept;

  // This rank's slice of a chunk of `length` elements in set `set` of
  // `lane`: after the chunk's first barrier, reduce_slice() reduces it over
  // every rank's slot, in rank order, into rank 0's slot, where every rank
  // finds the whole reduced chunk after the second barrier.
  struct Slice {
    std::byte* data;    // in rank 0's slot
    std::size_t count;  // elements
  };
  [[nodiscard]] Slice reduce_slice(int lane, unsigned set, std::size_t length, DataType type,
                                   ReduceOp op) const noexcept;
  // The whole chunk reduced over every rank's slot, in rank order (so every
  // rank gets the same bits, and those of reduce_slice), into `out`: a
  // chunk whose ranks each reduce all of it needs one barrier, not two.
  // A segment has two ranks or more (host_segment_applies).
  void reduce_all(int lane, unsigned set, std::size_t length, DataType type, ReduceOp op,
                  std::byte* out) const noexcept;

  // A barrier of one lane among the segment's ranks: co_await
  // Until{segment.arrive(lane)} marks this rank arrived and suspends until
  // every rank has. Writes made before it are seen by every rank after it.
  class Barrier final : public Readiness {
   public:
    Barrier(const HostSegment& segment, int lane, std::uint64_t epoch) noexcept
        : segment_(&segment), lane_(lane), epoch_(epoch) {}
    [[nodiscard]] bool ready() const noexcept override;
    // The segment's ranks that have not reached it.
    void behind(std::vector<int>& ranks) const override;

   private:
    const HostSegment* segment_;
    int lane_;
    std::uint64_t epoch_;
  };
  [[nodiscard]] Barrier arrive(int lane) noexcept;

  // A collective that left it between barriers (it failed, or its request
  // was dropped) leaves the ranks' barrier counts apart for good: the next
  // call must not trust them. begin() throws Error naming the communicator
  // rank when one did; end() marks a call that finished cleanly.
  void begin(const char* collective);
  void end() noexcept { in_call_ = false; }

 private:
  [[nodiscard]] std::byte* line(int lane, int rank) const noexcept;
  // Where `rank` describes the call this rank is in (describe()).
  [[nodiscard]] std::byte* call_place(int rank) const noexcept;

  shm::SharedSegment memory_;
  int ranks_;
  int rank_;
  std::size_t slot_bytes_;
  rail::OutsideWork* outside_;
  std::vector<std::uint64_t> epochs_;  // per lane: barriers this rank has reached
  std::vector<std::uint64_t> chunks_;  // per lane: chunks this rank has run (picks the set)
  std::uint64_t calls_ = 0;            // calls this rank has described (picks the place)
  bool in_call_ = false;
};

// Counts a segment collective in the world's outside work for as long as
// it lives, so that the waits of this process yield rather than sleep on
// the rails while it runs.
class OutsideWaiter {
 public:
  explicit OutsideWaiter(rail::OutsideWork& work) noexcept : work_(&work) {
    work_->waiters.fetch_add(1, std::memory_order_relaxed);
  }
  ~OutsideWaiter() { work_->waiters.fetch_sub(1, std::memory_order_relaxed); }
  OutsideWaiter(const OutsideWaiter&) = delete;
  OutsideWaiter& operator=(const OutsideWaiter&) = delete;
  OutsideWaiter(OutsideWaiter&&) = delete;
  OutsideWaiter& operator=(OutsideWaiter&&) = delete;

 private:
  rail::OutsideWork* work_;
};

// The segment of the ranks of `setup` (a channel whose ranks all share
// this rank's host, on a stream of its own for these messages), with
// `lanes` lanes: made by its rank 0 and opened by the others the first time
// a collective asks (every rank asks in the same collective), and null,
// agreed by all ranks, when one of them could not map it (logged as a
// warning; the caller then runs over messages).
CollectiveTask join_host_segment(const Channel& setup, int lanes,
                                 std::shared_ptr<HostSegment>& segment);

// Whether a collective on `channel` may use a host segment: blocking (each
// rank runs at most one segment collective at a time, so none waits for a
// segment another holds: the non-blocking forms run over messages, as Open
// MPI's coll/sm leaves them to libnbc), neither it nor shared memory
// turned off (RAILYARD_HOST_SEGMENT, RAILYARD_SHM), and more than one rank
// on this host.
[[nodiscard]] bool host_segment_applies(const Channel& channel, const CollectiveArgs& args);

// The segment of the communicator's ranks on this host (`setup`'s ranks),
// made at the first call (join_host_segment, over `setup`); null when the
// ranks could not make one. Every rank calls it in the same collective.
CollectiveTask host_segment_of(const Channel& setup, int lanes,
                               std::shared_ptr<HostSegment>& segment);

}  // namespace railyard::collectives::detail
