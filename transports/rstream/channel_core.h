// The machinery behind a Channel: its libfabric objects, its rings and
// credits, and the protocol that moves stream bytes through them. Internal;
// Channel and Listener are the API.
#pragma once

#include <rdma/fabric.h>

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

#include "railyard/common/status.h"
#include "railyard/common/unique_fd.h"
#include "railyard/transports/fabric/completion_queue.h"
#include "railyard/transports/fabric/endpoint.h"
#include "railyard/transports/fabric/event_queue.h"
#include "railyard/transports/fabric/memory_region.h"
#include "railyard/transports/rstream/background_progress.h"
#include "railyard/transports/rstream/channel_options.h"
#include "railyard/transports/rstream/credits.h"
#include "railyard/transports/rstream/io_result.h"
#include "railyard/transports/rstream/ring_space.h"
#include "railyard/transports/rstream/stream_fabric.h"
#include "railyard/transports/rstream/wire.h"

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

enum class SendKind : std::uint8_t { kRing, kIomap, kControl, kProbe };

// One posted send-side operation; libfabric hands its context back.
struct SendOp {
  fi_context2 context{};
  SendKind kind = SendKind::kRing;
  std::size_t staged = 0;          // send-ring bytes it holds
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

class ChannelCore {
 public:
  enum class Role : std::uint8_t { kConnecting, kAccepting };

  // Opens the endpoint, registers the rings and posts the receives.
  ChannelCore(std::shared_ptr<StreamFabric> fabric, fi_info& endpoint_info, ChannelOptions options,
              Role role, std::string peer_name);
  ~ChannelCore();
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
  [[nodiscard]] Readiness readiness();
  [[nodiscard]] int fd() const noexcept { return poll_set_.get(); }

  [[nodiscard]] Status map(void* buffer, std::size_t length, std::uint64_t offset);
  [[nodiscard]] Status unmap(std::uint64_t offset);
  [[nodiscard]] IoResult iowrite(std::span<const std::byte> data, std::uint64_t offset,
                                 Blocking blocking);

  [[nodiscard]] const ChannelCounters& counters() const noexcept { return counters_; }

  // Held by every Channel call, and by a background turn.
  [[nodiscard]] std::mutex& mutex() noexcept { return mutex_; }
  // Lets `progress` progress this channel while its user is elsewhere.
  void enable_background_progress(std::shared_ptr<BackgroundProgress> progress);
  // One background turn: if no call holds the channel, reads what arrived
  // and runs the keepalive, as a call would.
  void background_turn();
  [[nodiscard]] const std::string& peer_name() const noexcept { return peer_name_; }
  [[nodiscard]] const ChannelOptions& options() const noexcept { return options_; }
  [[nodiscard]] const RailLimits& limits() const noexcept { return fabric_->limits(); }

  // Progresses the channel: reads completions and connection events and
  // sends what they made due. Never blocks.
  void progress();
  // Waits until `ready` holds, the channel fails or `deadline` passes;
  // sends keepalive probes meanwhile. Returns whether `ready` held.
  bool wait_until(const std::function<bool()>& ready, Clock::time_point deadline);

 private:
  // Region layout, in bytes from its start.
  [[nodiscard]] std::byte* send_ring() const noexcept { return memory_.get(); }
  [[nodiscard]] std::byte* receive_ring() const noexcept {
    return memory_.get() + options_.send_buffer_size;
  }
  [[nodiscard]] std::byte* probe_source() const noexcept;
  [[nodiscard]] std::byte* control_buffer(std::size_t index) const noexcept;
  [[nodiscard]] std::byte* receive_buffer(std::size_t index) const noexcept;
  [[nodiscard]] std::uint64_t local_address(const void* where) const noexcept;
  [[nodiscard]] ConnectData connect_data() const;
  void accept_peer(std::span<const std::byte> data);

  // Sending (channel_send.cc).
  [[nodiscard]] std::size_t write_some(std::span<const std::byte> data);
  [[nodiscard]] std::size_t write_iomap(std::span<const std::byte> data, std::uint64_t offset);
  [[nodiscard]] SendOp* acquire_op(SendKind kind);
  void release_last_op();
  void retire_sends();
  [[nodiscard]] bool can_write() const noexcept;
  // The peer's mapping covering stream offset `at`, if any.
  [[nodiscard]] const IomapEntry* peer_mapping_at(std::uint64_t at) const noexcept;

  // Receiving and completions (channel_receive.cc).
  void read_completions();
  void read_events();
  void on_completion(const fi_cq_tagged_entry& entry);
  void on_completion_error();
  void on_data(std::uint64_t immediate);
  void on_control(std::size_t slot, std::size_t length);
  void repost(std::size_t slot);
  std::size_t copy_out(std::span<std::byte> out, bool consume);
  [[nodiscard]] bool readable() const noexcept;

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
  // then its queues, then the registration, and the memory goes last.
  std::size_t memory_size_ = 0;
  std::unique_ptr<std::byte[]> memory_;
  fabric::MemoryRegion region_;
  fabric::EventQueue eq_;
  fabric::CompletionQueue cq_;
  fabric::Endpoint endpoint_;
  UniqueFd signal_;    // eventfd: set while the channel is ready for its user
  UniqueFd poll_set_;  // epoll set of the queues' fds and signal_
  bool signaled_ = false;

  bool connected_ = false;
  // The peer, once connected.
  ConnectData peer_;
  RingSpace remote_ring_{1};  // the peer's receive ring as we fill it
  RingSpace send_ring_space_;
  RingSpace receive_ring_space_;
  Credits send_slots_;
  Credits peer_receives_;
  std::vector<SendOp> ops_;   // a ring of posted operations, retired in order
  std::size_t ops_head_ = 0;  // next to hand out
  std::size_t ops_tail_ = 0;  // oldest not retired
  std::size_t ops_used_ = 0;
  std::vector<std::size_t> free_control_buffers_;
  std::vector<ReceiveSlot> receive_slots_;
  std::size_t inject_limit_ = 0;  // inline writes up to this size
  bool control_inject_ = false;   // control messages fit an inject

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
  std::shared_ptr<BackgroundProgress> background_;  // removed from first on destruction
};

}  // namespace railyard::rstream::detail
