// The memory the ranks of a one-host communicator share for collectives
// that move data through it rather than through messages: per rank a flag
// line (how many barriers it has reached, and what it called), then two
// sets of slots, one slot per rank in each. A chunk of a collective uses one
// set, the next chunk the other: a rank may write a set again once every
// rank has passed the barrier after the chunk that used it last, so a
// chunk needs two barriers instead of three (docs/architecture.md, "Host
// segment").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "railyard/comm/collectives/algorithm_table.h"
#include "railyard/comm/collectives/datatype.h"
#include "railyard/comm/collectives/detail/channel.h"
#include "railyard/comm/collectives/detail/task.h"
#include "railyard/transports/rail/progress.h"
#include "railyard/transports/shm/shared_segment.h"

namespace railyard::comm::detail {

// What a rank called, published on its flag line so that every rank can
// check that all called the same (a mismatch would otherwise hang).
struct SegmentCall {
  std::uint64_t count = 0;
  std::uint32_t type = 0;
  std::uint32_t op = 0;

  friend bool operator==(const SegmentCall&, const SegmentCall&) = default;
};

class HostSegment {
 public:
  // The bytes of one slot for `ranks` ranks: 512 KiB while the segment
  // stays within 16 MiB, less (in whole pages) on hosts of more than 16.
  [[nodiscard]] static std::size_t slot_bytes_for(int ranks) noexcept;
  // The size of the segment of `ranks` ranks with slots of `slot_bytes`.
  [[nodiscard]] static std::size_t bytes_for(int ranks, std::size_t slot_bytes) noexcept;

  // Over `memory`, mapped by every one of `ranks` ranks; this one is `rank`.
  // `outside` is the world's (transports/rail/progress.h): every barrier
  // passed counts there as progress.
  HostSegment(shm::SharedSegment memory, int ranks, int rank, std::size_t slot_bytes,
              OutsideWork& outside);

  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] std::size_t slot_bytes() const noexcept { return slot_bytes_; }
  [[nodiscard]] OutsideWork& outside() const noexcept { return *outside_; }
  [[nodiscard]] std::byte* slot(unsigned set, int rank) const noexcept;
  // The set the next chunk uses (they alternate, call after call).
  [[nodiscard]] unsigned take_set() noexcept { return static_cast<unsigned>(chunks_++ % 2); }

  // Publishes what this rank called; call() reads another rank's.
  void describe(const SegmentCall& call) const noexcept;
  [[nodiscard]] SegmentCall call(int rank) const noexcept;

  // A barrier among the segment's ranks: co_await segment.barrier() marks
  // this rank arrived and suspends until every rank has. Writes made before
  // it are seen by every rank after it.
  class Barrier final : public Readiness {
   public:
    Barrier(const HostSegment& segment, std::uint64_t epoch) noexcept
        : segment_(&segment), epoch_(epoch) {}
    [[nodiscard]] bool ready() const noexcept override;

   private:
    const HostSegment* segment_;
    std::uint64_t epoch_;
  };
  [[nodiscard]] Barrier arrive() noexcept;

  // A collective that left it between barriers (it failed, or its request
  // was dropped) leaves the ranks' barrier counts apart for good: the next
  // call must not trust them. begin() throws Error naming the communicator
  // rank when one did; end() marks a call that finished cleanly.
  void begin(const char* collective);
  void end() noexcept { in_call_ = false; }

 private:
  [[nodiscard]] std::byte* line(int rank) const noexcept;

  shm::SharedSegment memory_;
  int ranks_;
  int rank_;
  std::size_t slot_bytes_;
  OutsideWork* outside_;
  std::uint64_t epoch_ = 0;   // barriers this rank has reached
  std::uint64_t chunks_ = 0;  // chunks this rank has run (picks the set)
  bool in_call_ = false;
};

// Counts a segment collective in the world's outside work for as long as
// it lives, so that the waits of this process yield rather than sleep on
// the rails while it runs.
class OutsideWaiter {
 public:
  explicit OutsideWaiter(OutsideWork& work) noexcept : work_(&work) {
    work_->waiters.fetch_add(1, std::memory_order_relaxed);
  }
  ~OutsideWaiter() { work_->waiters.fetch_sub(1, std::memory_order_relaxed); }
  OutsideWaiter(const OutsideWaiter&) = delete;
  OutsideWaiter& operator=(const OutsideWaiter&) = delete;
  OutsideWaiter(OutsideWaiter&&) = delete;
  OutsideWaiter& operator=(OutsideWaiter&&) = delete;

 private:
  OutsideWork* work_;
};

// A communicator's segment, once its ranks have tried to make one: held by
// its Group (comm/detail/world.h) for the communicator's lifetime.
struct HostSegmentSlot {
  std::mutex mutex;
  bool tried = false;
  std::shared_ptr<HostSegment> segment;  // null: the ranks could not make one
};

// The segment of `channel`'s communicator, whose ranks all share this
// rank's host: made by its rank 0 and opened by the others the first time a
// collective asks (every rank asks in the same collective), and null,
// agreed by all ranks, when one of them could not map it (logged once as a
// warning; the caller then runs an algorithm over messages). Its messages
// go on `channel`'s stream `stream`.
CollectiveTask join_host_segment(const Channel& channel, std::uint32_t stream,
                                 std::shared_ptr<HostSegment>& segment);

// Whether a collective on `channel` may use a host segment: blocking (each
// rank runs at most one segment collective at a time, so none waits for a
// segment another holds: the non-blocking forms run over messages, as Open
// MPI's coll/sm leaves them to libnbc), every rank on this host, shared
// memory not turned off (RAILYARD_SHM=off), and more than one rank.
[[nodiscard]] bool host_segment_applies(const Channel& channel, const CollectiveArgs& args);

// The communicator's slot (Group::host_segment).
[[nodiscard]] HostSegmentSlot& host_segment_slot(const Channel& channel);

}  // namespace railyard::comm::detail
