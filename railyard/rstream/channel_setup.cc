// Opening a channel's endpoint and memory, and connection management.
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "railyard/common/detail/errno_text.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {
namespace {

std::size_t region_size(const ChannelOptions& options) {
  return kProbeSize + kControlBuffers * kReceiveSlotSize +
         options.receive_queue_size * kReceiveSlotSize;
}

void add_to_poll_set(int poll_set, int fd) {
  if (fd < 0) {
    return;
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = fd;
  if (epoll_ctl(poll_set, EPOLL_CTL_ADD, fd, &event) != 0) {
    throw Error("epoll_ctl", -errno,
                fmt::format("adding a wait descriptor to a channel's poll set failed: {}",
                            errno_text(errno)));
  }
}

}  // namespace

ChannelCore::ChannelCore(std::shared_ptr<StreamFabric> fabric, fi_info& endpoint_info,
                         ChannelOptions options, Role role, std::string peer_name)
    : fabric_(std::move(fabric)),
      options_(std::move(options)),
      role_(role),
      peer_name_(std::move(peer_name)),
      memory_size_(region_size(options_)),
      memory_(std::make_unique<std::byte[]>(memory_size_)),
      eq_(fabric_->fabric()),
      cq_(fabric_->domain(), options_.send_queue_size + options_.receive_queue_size),
      endpoint_(fabric_->domain(), endpoint_info),
      send_slots_(options_.send_queue_size, kReservedSendSlots),
      ops_(options_.send_queue_size),
      receive_slots_(options_.receive_queue_size),
      local_maps_(options_.iomap_size) {
  endpoint_.bind(eq_);
  endpoint_.bind(cq_);
  endpoint_.enable();
  region_ = fabric::MemoryRegion(fabric_->domain(), memory_.get(), memory_size_,
                                 FI_SEND | FI_RECV | FI_WRITE, fabric_->next_key());
  if (limits().mr_endpoint()) {
    region_.bind_and_enable(endpoint_);
  }
  send_ring_ = make_ring(options_.send_buffer_size, 0, FI_WRITE);
  // The word after the receive ring takes the peer's keepalive probes.
  receive_ring_ = make_ring(options_.receive_buffer_size, kProbeSize, FI_REMOTE_WRITE);
  for (std::size_t i = 0; i < kControlBuffers; ++i) {
    free_control_buffers_.push_back(i);
  }
  for (std::size_t slot = 0; slot < receive_slots_.size(); ++slot) {
    const ssize_t rc = fi_recv(endpoint_.get(), receive_buffer(slot), kReceiveSlotSize,
                               region_.descriptor(), FI_ADDR_UNSPEC, &receive_slots_[slot].context);
    check_fabric(static_cast<int>(rc), "fi_recv",
                 fmt::format("posting receive {} of {} for rstream peer {}", slot + 1,
                             receive_slots_.size(), peer_name_));
  }
  inject_limit_ = std::min(options_.inline_size, limits().inject_size);
  control_inject_ = kControlMaxSize <= limits().inject_size;

  signal_ = UniqueFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  poll_set_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!signal_ || !poll_set_) {
    throw Error(
        "eventfd/epoll_create1", -errno,
        fmt::format("creating a channel's pollable descriptor failed: {}", errno_text(errno)));
  }
  add_to_poll_set(poll_set_.get(), signal_.get());
  add_to_poll_set(poll_set_.get(), cq_.wait_fd());
  add_to_poll_set(poll_set_.get(), eq_.wait_fd());
}

ChannelCore::~ChannelCore() {
  if (background_) {
    background_->remove(this);
  }
  const Status status = close();
  if (!status.ok()) {
    log::debug("rstream channel to {}: closing: {}", peer_name_, status.to_string());
  }
}

std::byte* ChannelCore::control_buffer(std::size_t index) const noexcept {
  return probe_source() + kProbeSize + index * kReceiveSlotSize;
}

std::byte* ChannelCore::receive_buffer(std::size_t index) const noexcept {
  return control_buffer(kControlBuffers) + index * kReceiveSlotSize;
}

ConnectData ChannelCore::connect_data() const {
  ConnectData data;
  data.receive_credits = static_cast<std::uint16_t>(receive_slots_.size());
  data.iomap_slots = static_cast<std::uint16_t>(options_.iomap_size);
  data.ring_size = static_cast<std::uint32_t>(receive_ring_->size());
  data.ring_address = ring_address(*receive_ring_);
  data.ring_key = receive_ring_->region().key();
  return data;
}

void ChannelCore::accept_peer(std::span<const std::byte> data) {
  std::string error;
  const auto peer = decode_connect_data(data, error);
  if (!peer) {
    throw Error(fmt::format("rstream peer {}: {}", peer_name_, error));
  }
  peer_ = *peer;
  remote_ring_ = RingSpace(peer_.ring_size);
  update_piece_limit();
  peer_receives_ = Credits(peer_.receive_credits, kReservedPeerReceives);
  peer_maps_.resize(peer_.iomap_slots);
}

void ChannelCore::start_connect(const void* address) {
  const auto data = encode_connect_data(connect_data());
  endpoint_.connect(address, data);
}

void ChannelCore::start_accept(std::span<const std::byte> peer_data) {
  accept_peer(peer_data);
  const auto data = encode_connect_data(connect_data());
  endpoint_.accept(data);
}

bool ChannelCore::poll_established() {
  while (!connected_) {
    auto event = eq_.read();
    if (!event) {
      return false;
    }
    const char* doing = role_ == Role::kConnecting ? "connecting to" : "accepting";
    if (event->error != 0) {
      // The provider's own text adds nothing when it is just "Success".
      const bool detail = !event->error_text.empty() && event->error_text != "Success";
      throw Error(
          fmt::format("rstream: {} {}: {}{}{}", doing, peer_name_, errno_text(event->error),
                      detail ? " (" + event->error_text + ")" : std::string(),
                      event->error == ECONNREFUSED ? "; nothing listens at that port" : ""));
    }
    if (event->type == FI_SHUTDOWN) {
      throw Error(
          fmt::format("rstream: {} {}: the peer closed the connection while it was being "
                      "set up",
                      doing, peer_name_));
    }
    if (event->type != FI_CONNECTED) {
      log::debug("rstream {}: ignoring {} while connecting", peer_name_,
                 fabric::event_name(event->type));
      continue;
    }
    if (role_ == Role::kConnecting) {
      accept_peer(event->data);
    }
    connected_ = true;
    last_heard_ = Clock::now();
    log::debug(
        "rstream channel to {} connected: rings {} / {} bytes, queues {} / {}, peer ring "
        "{} bytes and {} receives",
        peer_name_, options_.send_buffer_size, options_.receive_buffer_size,
        options_.send_queue_size, options_.receive_queue_size, peer_.ring_size,
        peer_.receive_credits);
  }
  return true;
}

void ChannelCore::wait_established(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!poll_established()) {
    const auto now = Clock::now();
    if (now >= deadline) {
      throw Error(fmt::format(
          "rstream: {} {}: no answer within {} ms (is the address right and "
          "reachable, and is a listener there?)",
          role_ == Role::kConnecting ? "connecting to" : "accepting", peer_name_, timeout.count()));
    }
    block_until(std::min(deadline, now + options_.wake_up_interval));
  }
}

void ChannelCore::enable_background_progress(std::shared_ptr<rail::BackgroundProgress> progress) {
  background_ = std::move(progress);
  // Often enough that a probe is answered well within our keepalive, and
  // within any peer's (at least 1 s).
  const auto period = rail::BackgroundProgress::period_for(
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.keepalive));
  background_->add(this, period);
}

void ChannelCore::background_turn() {
  const std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || !connected_ || closed_) {
    return;  // a call is under way, and it progresses the channel itself
  }
  progress();
  keepalive(Clock::now());
}

Status ChannelCore::close() {
  if (closed_) {
    return {};
  }
  Status result;
  if (connected_ && !disconnected_ && error_.ok()) {
    result = shutdown(ShutdownHow::kBoth);
  }
  closed_ = true;
  if (connected_ && !disconnected_) {
    disconnected_ = true;
    endpoint_.shutdown();
  }
  return result;
}

void ChannelCore::drop() noexcept {
  if (closed_) {
    return;
  }
  closed_ = true;
  if (connected_ && !disconnected_) {
    disconnected_ = true;
    endpoint_.shutdown();
  }
}

}  // namespace railyard::rstream::detail
