#include "railyard/collectives/detail/host_segment.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <optional>
#include <vector>

#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/reduction.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::collectives::detail {
namespace {

// One flag line per rank, two cache lines long: a neighbour's line that the
// hardware prefetches with it is then never another rank's.
constexpr std::size_t kLineBytes = 128;
// Where a line holds what: the barrier count, then the call, in one of two
// places (see HostSegment::describe).
constexpr std::size_t kEpochAt = 0;
constexpr std::size_t kCallAt = 64;
constexpr std::size_t kCallBytes = 32;
static_assert(sizeof(SegmentCall) <= kCallBytes && kCallAt + 2 * kCallBytes <= kLineBytes);
constexpr std::size_t kPage = 4096;
// A chunk of 512 KiB a rank keeps the working set of a chunk (p slots, the
// slice reduced, the part copied out) within the caches; smaller slots
// take more barriers (docs/benchmarks.md, "Tuning choices").
constexpr std::size_t kMostSlotBytes = std::size_t{512} << 10;
constexpr std::size_t kMostSegmentBytes = std::size_t{16} << 20;
// The setup message: a status byte, then the name.
constexpr std::size_t kNameBytes = 256;

std::size_t header_bytes(int ranks, int lanes) noexcept {
  const std::size_t lines =
      static_cast<std::size_t>(ranks) * static_cast<std::size_t>(lanes) * kLineBytes;
  return (lines + kPage - 1) / kPage * kPage;
}

std::atomic_ref<std::uint64_t> epoch_of(std::byte* line) noexcept {
  // The mapping is page-aligned and lines are 128 bytes apart: aligned.
  return std::atomic_ref<std::uint64_t>(
      *reinterpret_cast<std::uint64_t*>(line + kEpochAt));  // NOLINT(*-reinterpret-cast)
}

// A name no other segment of this user has: the stale-region sweep
// (railyard/shm/stale_regions.h) reads the process and user from it.
std::string segment_name() {
  static std::atomic<unsigned> made{0};
  return fmt::format("/{}{}:{}:{}", shm::kSegmentPrefix, ::getpid(), ::geteuid(),
                     made.fetch_add(1, std::memory_order_relaxed));
}

}  // namespace

std::size_t HostSegment::slot_bytes_for(int ranks, int lanes) noexcept {
  const std::size_t slots = 2 * static_cast<std::size_t>(std::max(ranks, 1)) *
                            static_cast<std::size_t>(std::max(lanes, 1));
  return std::clamp(kMostSegmentBytes / slots / kPage * kPage, kPage, kMostSlotBytes);
}

std::size_t HostSegment::bytes_for(int ranks, int lanes, std::size_t slot_bytes) noexcept {
  return header_bytes(ranks, lanes) +
         2 * static_cast<std::size_t>(ranks) * static_cast<std::size_t>(lanes) * slot_bytes;
}

HostSegment::HostSegment(shm::SharedSegment memory, int ranks, int rank, int lanes,
                         std::size_t slot_bytes, rail::OutsideWork& outside)
    : memory_(std::move(memory)),
      ranks_(ranks),
      rank_(rank),
      slot_bytes_(slot_bytes),
      outside_(&outside),
      epochs_(static_cast<std::size_t>(lanes), 0),
      chunks_(static_cast<std::size_t>(lanes), 0) {}

std::byte* HostSegment::line(int lane, int rank) const noexcept {
  const std::size_t index = static_cast<std::size_t>(lane) * static_cast<std::size_t>(ranks_) +
                            static_cast<std::size_t>(rank);
  return memory_.data() + index * kLineBytes;
}

std::byte* HostSegment::slot(int lane, unsigned set, int rank) const noexcept {
  const std::size_t index =
      (static_cast<std::size_t>(lane) * 2 + set) * static_cast<std::size_t>(ranks_) +
      static_cast<std::size_t>(rank);
  return memory_.data() + header_bytes(ranks_, lanes()) + index * slot_bytes_;
}

std::byte* HostSegment::call_place(int rank) const noexcept {
  return line(0, rank) + kCallAt + (calls_ % 2) * kCallBytes;
}

void HostSegment::describe(const SegmentCall& call) noexcept {
  ++calls_;
  std::memcpy(call_place(rank_), &call, sizeof call);
}

SegmentCall HostSegment::call(int rank) const noexcept {
  SegmentCall out;
  std::memcpy(&out, call_place(rank), sizeof out);
  return out;
}

HostSegment::Slice HostSegment::reduce_slice(int lane, unsigned set, std::size_t length,
                                             DataType type, ReduceOp op) const noexcept {
  const std::size_t element = size_of(type);
  const Blocks slices{length, static_cast<std::size_t>(ranks_)};
  const std::size_t offset = slices.offset(static_cast<std::size_t>(rank_)) * element;
  const Slice slice{slot(lane, set, 0) + offset, slices.length(static_cast<std::size_t>(rank_))};
  for (int rank = 1; rank < ranks_ && slice.count != 0; ++rank) {
    reduce(type, op, slice.data, slice.data, slot(lane, set, rank) + offset, slice.count);
  }
  return slice;
}

void HostSegment::reduce_all(int lane, unsigned set, std::size_t length, DataType type, ReduceOp op,
                             std::byte* out) const noexcept {
  reduce(type, op, out, slot(lane, set, 0), slot(lane, set, 1), length);
  for (int rank = 2; rank < ranks_; ++rank) {
    reduce(type, op, out, out, slot(lane, set, rank), length);
  }
}

std::optional<Mismatch> HostSegment::mismatch(const SegmentCall& mine) const noexcept {
  for (int rank = 0; rank < ranks_; ++rank) {
    const SegmentCall theirs = call(rank);
    if (theirs != mine) {
      return Mismatch{rank, theirs};
    }
  }
  return std::nullopt;
}

std::string Mismatch::describe(const Channel& local, const SegmentCall& mine) const {
  const auto called = [](const SegmentCall& one) {
    return fmt::format("{} elements of {} ({})", one.count,
                       to_string(static_cast<DataType>(one.type)),
                       to_string(static_cast<ReduceOp>(one.op)));
  };
  return fmt::format(
      "{}: rank {} called it with {} where rank {} called it with {}: every rank must pass the "
      "same count, type and operation",
      local.name(), local.team_rank(rank), called(call), local.team_rank(local.rank()),
      called(mine));
}

HostSegment::Barrier HostSegment::arrive(int lane) noexcept {
  const std::uint64_t epoch = ++epochs_[static_cast<std::size_t>(lane)];
  epoch_of(line(lane, rank_)).store(epoch, std::memory_order_release);
  return {*this, lane, epoch};
}

bool HostSegment::Barrier::ready() const noexcept {
  for (int rank = 0; rank < segment_->ranks_; ++rank) {
    if (epoch_of(segment_->line(lane_, rank)).load(std::memory_order_acquire) < epoch_) {
      return false;
    }
  }
  segment_->outside_->advances.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void HostSegment::Barrier::behind(std::vector<int>& ranks) const {
  for (int rank = 0; rank < segment_->ranks_; ++rank) {
    if (epoch_of(segment_->line(lane_, rank)).load(std::memory_order_acquire) < epoch_) {
      ranks.push_back(rank);
    }
  }
}

void HostSegment::begin(const char* collective) {
  if (in_call_) {
    throw Error(fmt::format(
        "{}: an earlier collective over this communicator's host segment failed or was "
        "abandoned between two of its barriers, so the ranks no longer agree where they are in "
        "it (rank {} of the host); the communicator cannot run shared-segment collectives again",
        collective, rank_));
  }
  in_call_ = true;
}

CollectiveTask join_host_segment(const Channel& setup, int lanes,
                                 std::shared_ptr<HostSegment>& segment) {
  const int ranks = setup.size();
  const std::size_t slot_bytes = HostSegment::slot_bytes_for(ranks, lanes);
  const std::size_t bytes = HostSegment::bytes_for(ranks, lanes, slot_bytes);
  std::optional<shm::SharedSegment> memory;
  std::uint8_t mapped = 0;  // this rank's part of the verdict: 1 if it mapped it
  std::array<char, kNameBytes> message{};
  if (setup.rank() == 0) {
    // Rank 0 makes it, tells the others its name, and removes the name once
    // each has opened it (or failed to): nothing is left in /dev/shm.
    const std::string name = segment_name();
    try {
      memory = shm::SharedSegment::create(name, bytes);
      mapped = 1;
    } catch (const Error& error) {
      log::warn("{}: cannot make the host segment ({}); it runs over messages", setup.name(),
                error.what());
    }
    message[0] = static_cast<char>(mapped);
    std::memcpy(message.data() + 1, name.c_str(), name.size() + 1);
    std::vector<Transfer> sends;
    std::vector<std::uint8_t> opened(static_cast<std::size_t>(ranks), 0);
    for (int rank = 1; rank < ranks; ++rank) {
      sends.push_back(setup.send(message.data(), message.size(), rank));
      sends.push_back(setup.recv(&opened[static_cast<std::size_t>(rank)], 1, rank));
    }
    co_await Transfers{sends};
    if (memory) {
      memory->unlink();
    }
    mapped = mapped != 0 && std::ranges::all_of(opened.begin() + 1, opened.end(),
                                                [](std::uint8_t one) { return one != 0; })
                 ? 1
                 : 0;
    std::vector<Transfer> verdicts;
    for (int rank = 1; rank < ranks; ++rank) {
      verdicts.push_back(setup.send(&mapped, 1, rank));
    }
    co_await Transfers{verdicts};
  } else {
    std::array<Transfer, 1> received{setup.recv(message.data(), message.size(), 0)};
    co_await Transfers{received};
    setup.expect(received[0], message.size(), 0);
    message.back() = '\0';
    const std::string name(message.data() + 1);
    if (message[0] != 0) {
      try {
        memory = shm::SharedSegment::open(name, bytes);
        mapped = 1;
      } catch (const Error& error) {
        log::warn("{}: cannot open the host segment ({}); it runs over messages", setup.name(),
                  error.what());
      }
    }
    std::uint8_t verdict = 0;
    std::array<Transfer, 2> answer{setup.send(&mapped, 1, 0), setup.recv(&verdict, 1, 0)};
    co_await Transfers{answer};
    mapped = verdict;
  }
  if (mapped != 0 && memory) {
    segment = std::make_shared<HostSegment>(std::move(*memory), ranks, setup.rank(), lanes,
                                            slot_bytes, setup.team().outside_work());
    log::info("{}: host segment of {} ranks, {} lane(s), {} bytes, slots of {} bytes", setup.name(),
              ranks, lanes, bytes, slot_bytes);
  }
}

bool host_segment_applies(const Channel& channel, const CollectiveArgs& args) {
  return args.blocking && channel.size() > 1 && channel.team().host_segment_allowed();
}

CollectiveTask host_segment_of(const Channel& setup, int lanes,
                               std::shared_ptr<HostSegment>& segment) {
  TeamState& slot = setup.team().state();
  bool join = false;
  {
    const std::scoped_lock lock(slot.mutex);
    join = !slot.host_segment_tried;
    slot.host_segment_tried = true;
    segment = slot.host_segment;
  }
  if (join) {
    co_await join_host_segment(setup, lanes, segment);
    const std::scoped_lock lock(slot.mutex);
    slot.host_segment = segment;
  }
  // A communicator's ranks use one kind of segment (one host: one lane;
  // several: the split-rail lanes); every rank sees the same here.
  if (segment && segment->lanes() < lanes) {
    segment.reset();
  }
}

}  // namespace railyard::collectives::detail
