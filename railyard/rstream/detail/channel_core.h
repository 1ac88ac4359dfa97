// The machinery behind a Channel: its libfabric objects, its rings and
// credits, and the protocol that moves stream bytes through them. Internal;
// Channel and Listener are the API.
#pragma once

#include <rdma/fabric.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/common/detail/unique_fd.h"
#include "railyard/common/status.h"
#include "railyard/fabric/completion_queue.h"
#include "railyard/fabric/endpoint.h"
#include "railyard/fabric/event_queue.h"
#include "railyard/fabric/memory_region.h"
#include "railyard/rail/detail/background_progress.h"
#include "railyard/rstream/channel_options.h"
#include "railyard/rstream/detail/credits.h"
#include "railyard/rstream/detail/registered_ring.h"
#include "railyard/rstream/detail/ring_space.h"
#include "railyard/rstream/detail/stream_fabric.h"
#include "railyard/rstream/detail/wire.h"
#include "railyard/rstream/io_result.h"

namespace railyard::rstream::detail {

using Clock = std::chrono::steady_clock;

// Send queue entries and peer receives kept for control messages (credits,
// shutdown, iomap) and keepalive probes.
inline constexpr std::size_t kReservedSendSlots = 4;
inline constexpr std::size_t kReservedPeerReceives = 2;
// Registered buffers for control messages too large to inject.
inline constexpr std::size_t kControlBuffers = 8;
// Each posted receive holds one control message.
inline constexpr std::size_t kReceiveSlotSize = 64;
static_assert(kControlMaxSize <= kReceiveSlotSize);
// Stream writes are cut into pieces of a fraction of the rings, between
// these bounds: copying one piece overlaps with sending the previous one,
// and the reader frees space while later pieces are in flight.
inline constexpr std::size_t kPiecesPerRing = 4;
inline constexpr std::size_t kMinPiece = 1024;
inline constexpr std::size_t kMaxPiece = std::size_t{64} * 1024;
// A ring grows by this factor once a writer has waited for room in it this
// many times since it last grew.
inline constexpr std::size_t kRingGrowthFactor = 4;
inline constexpr std::size_t kGrowAfterStalls = 4;

enum class SendKind : std::uint8_t { kRing, kIomap, kControl, kProbe };

// One posted send-side operation; libfabric hands its context back.
struct SendOp {
  fi_context2 context{};
  SendKind kind = SendKind::kRing;
  std::size_t staged = 0;          // send-ring bytes it holds
  std::uint32_t send_ring = 0;     // which send ring (generation) holds them
  std::size_t control_buffer = 0;  // kControl: the buffer it holds
  bool done = false;
};

struct ReceiveSlot {
  fi_context2 context{};
};

// A buffer of ours the peer may write into, and one of the peer's we may.
struct LocalMapping {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  fabric::MemoryRegion region;
};

class ChannelCore final : public rail::BackgroundTask {
 public:
  enum class Role : std::uint8_t { kConnecting, kAccepting };

  // Opens the endpoint, registers the rings and posts the receives.
  ChannelCore(std::shared_ptr<StreamFabric> fabric, fi_info& endpoint_info, ChannelOptions options,
              Role role, std::string peer_name);
  ~ChannelCore() override;
  ChannelCore(const ChannelCore&) = delete;
  ChannelCore& operator=(const ChannelCore&) = delete;
  ChannelCore(ChannelCore&&) = delete;
  ChannelCore& operator=(ChannelCore&&) = delete;

  // Starts connection management: fi_connect to `address` or fi_accept.
  void start_connect(const void* address);
  // Accepts a connection request that carried the peer's `peer_data`.
  void start_accept(std::span<const std::byte> peer_data);
  // Reads connection events; returns true once connected. Throws Error
  // naming the peer when the connection was refused or failed.
  [[nodiscard]] bool poll_established();
  // As poll_established, waiting up to `timeout`; throws Error on timeout.
  void wait_established(std::chrono::milliseconds timeout);
  [[nodiscard]] int event_fd() const noexcept { return eq_.wait_fd(); }

  [[nodiscard]] IoResult send(std::span<const std::byte> data, Blocking blocking);
  [[nodiscard]] IoResult receive(std::span<std::byte> out, Blocking blocking, bool peek,
                                 bool wait_all);
  [[nodiscard]] Status shutdown(ShutdownHow how);
  [[nodiscard]] Status close();
  // Closes without waiting for queued bytes to leave (see Channel::drop).
  void drop() noexcept;
  [[nodiscard]] Readiness readiness();
  // The pollable descriptor; from the first call on, the channel keeps its
  // eventfd in step with readiness (two system calls per change, which
  // channels nobody polls do not pay).
  [[nodiscard]] int fd() noexcept {
    signal_used_.store(true, std::memory_order_relaxed);
    return poll_set_.get();
  }

  [[nodiscard]] Status map(void* buffer, std::size_t length, std::uint64_t offset);
  [[nodiscard]] Status unmap(std::uint64_t offset);
  [[nodiscard]] IoResult iowrite(std::span<const std::byte> data, std::uint64_t offset,
                                 Blocking blocking);

  [[nodiscard]] const ChannelCounters& counters() const noexcept { return counters_; }

  // Held by every Channel call, and by a background turn.
  [[nodiscard]] std::mutex& mutex() noexcept { return mutex_; }
  // Lets `progress` progress this channel while its user is elsewhere.
  void enable_background_progress(std::shared_ptr<rail::BackgroundProgress> progress);
  // One background turn: if no call holds the channel, reads what arrived
  // and runs the keepalive, as a call would.
  void background_turn() override;
  [[nodiscard]] const std::string& peer_name() const noexcept { return peer_name_; }
  [[nodiscard]] const ChannelOptions& options() const noexcept { return options_; }
  [[nodiscard]] const rail::RailLimits& limits() const noexcept { return fabric_->limits(); }

  // Progresses the channel: reads completions and connection events and
  // sends what they made due. Never blocks.
  void progress();
  // Waits until `ready` holds, the channel fails or `deadline` passes;
  // sends keepalive probes meanwhile. Returns whether `ready` held.
  bool wait_until(const std::function<bool()>& ready, Clock::time_point deadline);

 private:
  // Layout of the small-buffer region, in bytes from its start.
  [[nodiscard]] std::byte* probe_source() const noexcept { return memory_.get(); }
  [[nodiscard]] std::byte* control_buffer(std::size_t index) const noexcept;
  [[nodiscard]] std::byte* receive_buffer(std::size_t index) const noexcept;
  [[nodiscard]] ConnectData connect_data() const;
  void accept_peer(std::span<const std::byte> data);

  // Sending (channel_send.cc).
  [[nodiscard]] std::size_t write_some(std::span<const std::byte> data);
  [[nodiscard]] std::size_t write_iomap(std::span<const std::byte> data, std::uint64_t offset);
  [[nodiscard]] SendOp* acquire_op(SendKind kind);
  void release_last_op();
  void retire_sends();
  // Notes why a send stopped short: waiting for room in the peer's ring or
  // in our send ring (either may make a ring grow).
  void note_write_stall();
  [[nodiscard]] bool can_write() const noexcept;
  // The peer's mapping covering stream offset `at`, if any.
  [[nodiscard]] const IomapEntry* peer_mapping_at(std::uint64_t at) const noexcept;

  // Receiving and completions (channel_receive.cc).
  // Returns how many completions (and errors) it handled.
  std::size_t read_completions();
  void read_events();
  void on_completion(const fi_cq_tagged_entry& entry);
  void on_completion_error();
  void on_data(std::uint64_t immediate);
  void on_control(std::size_t slot, std::size_t length);
  void repost(std::size_t slot);
  std::size_t copy_out(std::span<std::byte> out, bool consume);
  [[nodiscard]] std::size_t unread_bytes() const noexcept;
  [[nodiscard]] bool readable() const noexcept;

  // Rings and their growth (channel_rings.cc).
  // A ring of `size` bytes (and `trailer` more), registered for `access`.
  [[nodiscard]] std::unique_ptr<RegisteredRing> make_ring(std::size_t size, std::size_t trailer,
                                                          std::uint64_t access);
  // The address peers target for the ring's first byte.
  [[nodiscard]] std::uint64_t ring_address(const RegisteredRing& ring) const noexcept;
  // Where a ring write of ours lands, and the immediate data it carries.
  [[nodiscard]] std::uint64_t ring_write_data(std::size_t length) const noexcept;
  // The ring a peer's write with immediate data `immediate` went into, or
  // nullptr (and the channel failed) when it names none we offered.
  RegisteredRing* ring_written(std::uint64_t immediate);
  // Offers the peer a larger receive ring once it has waited often enough.
  void grow_receive_ring_if_due();
  // Frees a replaced receive ring once the peer writes no more into it and
  // everything in it was read.
  void release_drained_ring();
  // The peer offered a new ring: later writes go there.
  void on_ring_grant(const RingGrant& grant);
  // Replaces the send ring by a larger one when growth was asked for.
  void grow_send_ring_if_due();
  // Gives the staging space of a finished operation back to its ring.
  void release_staged(const SendOp& op);
  // Takes credit for `freed` bytes of the peer's rings, oldest first.
  [[nodiscard]] bool take_ring_credit(std::size_t freed);
  void update_piece_limit();

  // Control messages and keepalive (channel_control.cc).
  // Sends now if credits allow; false when it must be retried later.
  // `confirm`: completes only once delivered (FI_DELIVERY_COMPLETE).
  bool send_control(ControlMessage message, bool confirm = false);
  void announce_if_due();
  void keepalive(Clock::time_point now);
  [[nodiscard]] Clock::time_point next_keepalive_check() const noexcept;

  // Failure and wake-ups (channel_wait.cc).
  void fail(Status status);
  // Fails the channel because posting `what` returned `rc`.
  void fail_post(std::string_view what, ssize_t rc);
  // Why no more stream bytes can go out (the channel's error, or the peer's
  // disconnect); ok while they can.
  [[nodiscard]] Status write_failure() const;
  void block_until(Clock::time_point until);
  void update_signal();

  std::shared_ptr<StreamFabric> fabric_;
  ChannelOptions options_;
  Role role_;
  std::string peer_name_;
  // Declared so that the endpoint closes first (cancelling what is posted),
  // then its queues, then the registrations, and the memory goes last.
  // Probe source, control buffers and posted receives share one region;
  // each ring has its own.
  std::size_t memory_size_ = 0;
  std::unique_ptr<std::byte[]> memory_;
  fabric::MemoryRegion region_;
  std::unique_ptr<RegisteredRing> send_ring_;
  std::unique_ptr<RegisteredRing> old_send_ring_;  // replaced, until its writes finish
  std::unique_ptr<RegisteredRing> receive_ring_;
  std::unique_ptr<RegisteredRing> draining_ring_;  // replaced, read before receive_ring_
  fabric::EventQueue eq_;
  fabric::CompletionQueue cq_;
  fabric::Endpoint endpoint_;
  UniqueFd signal_;    // eventfd: set while the channel is ready for its user
  UniqueFd poll_set_;  // epoll set of the queues' fds and signal_
  bool signaled_ = false;
  std::atomic<bool> signal_used_{false};  // fd() was handed out

  bool connected_ = false;
  // The peer, once connected.
  ConnectData peer_;
  RingSpace remote_ring_{1};  // the peer's receive ring as we fill it
  Credits send_slots_;
  Credits peer_receives_;
  std::vector<SendOp> ops_;   // a ring of posted operations, retired in order
  std::size_t ops_head_ = 0;  // next to hand out
  std::size_t ops_tail_ = 0;  // oldest not retired
  std::size_t ops_used_ = 0;
  std::vector<std::size_t> free_control_buffers_;
  std::vector<ReceiveSlot> receive_slots_;
  std::size_t inject_limit_ = 0;         // inline writes up to this size
  std::size_t piece_limit_ = kMaxPiece;  // the largest single write
  bool control_inject_ = false;          // control messages fit an inject

  // Ring growth. Sending side: the peer's current ring is told apart from
  // the one it replaced by a parity bit in each write; bytes written into
  // replaced rings are credited back first. Receiving side: hints counted,
  // and which ring the parity names.
  bool write_parity_ = false;
  bool peer_ring_stall_ = false;  // the next ring write carries kWriteStalledBit
  bool receive_parity_ = false;   // parity of receive_ring_
  bool draining_open_ = false;    // the peer may still write into draining_ring_
  bool ring_growth_failed_ = false;
  std::uint32_t send_ring_generation_ = 0;
  std::size_t old_remote_bytes_ = 0;  // in the peer's replaced rings, not yet freed
  std::size_t send_ring_stalls_ = 0;  // waits for our own send ring since it grew
  std::size_t wanted_send_ring_ = 0;  // size asked for by a stall or a peer's growth
  std::size_t stall_hints_ = 0;       // writes flagged kWriteStalledBit since the ring grew

  // Credits owed to the peer, sent with the next control message.
  std::size_t unreturned_receives_ = 0;
  std::size_t freed_bytes_ = 0;
  bool shutdown_pending_ = false;  // kShutdown still to be sent

  bool write_shut_ = false;       // we shut down writing
  bool read_shut_ = false;        // we shut down reading
  bool peer_write_shut_ = false;  // the peer sent kShutdown
  bool disconnected_ = false;     // FI_SHUTDOWN seen or we disconnected
  bool want_write_ = false;       // a send would have blocked; signal when room returns
  bool closed_ = false;
  Status error_;

  // Keepalive: when the peer was last heard from, and the probe in flight.
  Clock::time_point last_heard_;
  std::optional<Clock::time_point> probe_sent_;
  bool delivery_complete_ = true;  // false once the provider refused FI_DELIVERY_COMPLETE

  std::vector<std::optional<IomapEntry>> peer_maps_;
  std::vector<std::optional<LocalMapping>> local_maps_;

  ChannelCounters counters_;

  std::mutex mutex_;
  std::shared_ptr<rail::BackgroundProgress> background_;  // removed from first on destruction
};

}  // namespace railyard::rstream::detail
