// Waiting without burning a core, failing once, and the channel's
// pollable descriptor.
#include <poll.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <thread>

#include "railyard/common/detail/log.h"
#include "railyard/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {

void ChannelCore::fail(Status status) {
  if (!error_.ok()) {
    return;
  }
  log::warn("{}", status.message());
  error_ = std::move(status);
  update_signal();
}

void ChannelCore::fail_post(std::string_view what, ssize_t rc) {
  const int error = static_cast<int>(-rc);
  fail(Status(
      StatusCode::kIoError,
      fmt::format("rstream channel to {}: {} failed: {}", peer_name_, what, fi_strerror(error)),
      error));
}

Status ChannelCore::write_failure() const {
  if (!error_.ok()) {
    return error_;
  }
  if (disconnected_) {
    return {StatusCode::kUnreachable,
            fmt::format("rstream peer {} closed the connection", peer_name_)};
  }
  return {};
}

bool ChannelCore::wait_until(const std::function<bool()>& ready, Clock::time_point deadline) {
  auto spin_end = Clock::now() + options_.polling_time;
  while (true) {
    progress();
    if (ready()) {
      return true;
    }
    if (!error_.ok()) {
      return false;
    }
    const auto now = Clock::now();
    keepalive(now);
    if (now >= deadline) {
      return false;
    }
    if (now < spin_end) {
      continue;
    }
    block_until(std::min({deadline, now + options_.wake_up_interval, next_keepalive_check()}));
    spin_end = Clock::now() + options_.polling_time;
  }
}

void ChannelCore::block_until(Clock::time_point until) {
  std::array<fid*, 2> fids{&cq_.get()->fid, &eq_.get()->fid};
  const int ready = fi_trywait(fabric_->fabric().get(), fids.data(), connected_ ? 2 : 1);
  if (ready == -FI_EAGAIN) {
    return;  // completions or events are waiting: progress first
  }
  const auto now = Clock::now();
  if (until <= now) {
    return;
  }
  const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(until - now);
  if (ready != 0 || cq_.wait_fd() < 0 || eq_.wait_fd() < 0) {
    // Nothing to sleep on: poll at a modest pace.
    std::this_thread::sleep_for(
        std::min<std::chrono::nanoseconds>(wait, std::chrono::milliseconds(1)));
    return;
  }
  std::array<pollfd, 2> fds{{{cq_.wait_fd(), POLLIN, 0}, {eq_.wait_fd(), POLLIN, 0}}};
  timespec timeout{};
  timeout.tv_sec = static_cast<time_t>(wait.count() / 1'000'000'000);
  timeout.tv_nsec = static_cast<long>(wait.count() % 1'000'000'000);
  (void)ppoll(fds.data(), fds.size(), &timeout, nullptr);
}

void ChannelCore::update_signal() {
  if (!signal_ || !signal_used_.load(std::memory_order_relaxed)) {
    return;
  }
  const bool want = readable() || disconnected_ || (want_write_ && can_write());
  if (want == signaled_) {
    return;
  }
  std::uint64_t value = 1;
  if (want) {
    (void)::write(signal_.get(), &value, sizeof(value));
  } else {
    (void)::read(signal_.get(), &value, sizeof(value));
  }
  signaled_ = want;
}

Readiness ChannelCore::readiness() {
  // Whoever asks may poll the descriptor next.
  signal_used_.store(true, std::memory_order_relaxed);
  Readiness state;
  for (int attempt = 0; attempt < 4; ++attempt) {
    progress();
    keepalive(Clock::now());
    state.readable = readable() || disconnected_;
    state.writable = can_write() && !write_shut_ && !disconnected_;
    state.hangup = disconnected_ || peer_write_shut_;
    state.error = !error_.ok();
    want_write_ = !state.writable;
    update_signal();
    if (state.readable || closed_ || !connected_) {
      break;
    }
    // Nothing to read: arm the wait objects so fd() wakes on the next event
    // (writability is signalled through the eventfd, once asked for).
    std::array<fid*, 2> fids{&cq_.get()->fid, &eq_.get()->fid};
    if (fi_trywait(fabric_->fabric().get(), fids.data(), 2) != -FI_EAGAIN) {
      break;
    }
  }
  return state;
}

}  // namespace railyard::rstream::detail
