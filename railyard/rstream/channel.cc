#include "railyard/rstream/channel.h"

#include <poll.h>

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "railyard/common/error.h"
#include "railyard/rstream/detail/channel_core.h"
#include "railyard/rstream/detail/stream_fabric.h"
#include "railyard/rstream/stream_address.h"

namespace railyard::rstream {
namespace {

Status not_open() { return {StatusCode::kInvalidArgument, "rstream channel is not connected"}; }

// Function-local statics: constructed on first use, where a throw is catchable.
const std::string& no_peer() {
  static const std::string name = "(not connected)";
  return name;
}

const ChannelOptions& no_options() {
  static const ChannelOptions options{};
  return options;
}

// Every call holds the channel against the background progress thread.
template <typename Call>
auto locked(detail::ChannelCore& core, Call call) {
  const std::scoped_lock lock(core.mutex());
  return call(core);
}

}  // namespace

Channel::Channel() noexcept = default;
Channel::~Channel() = default;
Channel::Channel(Channel&&) noexcept = default;
Channel& Channel::operator=(Channel&&) noexcept = default;
Channel::Channel(std::unique_ptr<detail::ChannelCore> core) : core_(std::move(core)) {
  if (core_->options().background_progress) {
    core_->enable_background_progress(rail::BackgroundProgress::shared());
  }
}

Channel Channel::connect(std::string_view address, const ChannelOptions& options) {
  options.validate();
  const StreamAddress target = parse_stream_address("rstream address", address);
  fabric::FabricInfo info = select_stream_info(target, false, options);
  auto fabric = std::make_shared<StreamFabric>(fabric::FabricInfo::copy_of(*info.get()));
  StreamAddress named = target;
  named.provider = fabric->limits().provider;
  auto core = std::make_unique<detail::ChannelCore>(
      fabric, *info.get(), options, detail::ChannelCore::Role::kConnecting, named.to_string());
  core->start_connect(info->dest_addr);
  core->wait_established(options.connect_timeout);
  return Channel(std::move(core));
}

Channel Channel::connect(std::string_view address) {
  return connect(address, ChannelOptions::from_environment());
}

IoResult Channel::send(std::span<const std::byte> data, Blocking blocking) {
  if (!core_) {
    return IoResult::failed(not_open());
  }
  return locked(*core_, [&](detail::ChannelCore& core) { return core.send(data, blocking); });
}

IoResult Channel::receive(std::span<std::byte> out, Blocking blocking) {
  if (!core_) {
    return IoResult::failed(not_open());
  }
  return locked(
      *core_, [&](detail::ChannelCore& core) { return core.receive(out, blocking, false, false); });
}

IoResult Channel::receive_all(std::span<std::byte> out) {
  if (!core_) {
    return IoResult::failed(not_open());
  }
  return locked(*core_, [&](detail::ChannelCore& core) {
    return core.receive(out, Blocking::kBlock, false, true);
  });
}

IoResult Channel::peek(std::span<std::byte> out, Blocking blocking) {
  if (!core_) {
    return IoResult::failed(not_open());
  }
  return locked(
      *core_, [&](detail::ChannelCore& core) { return core.receive(out, blocking, true, false); });
}

Status Channel::shutdown(ShutdownHow how) {
  if (!core_) {
    return not_open();
  }
  return locked(*core_, [&](detail::ChannelCore& core) { return core.shutdown(how); });
}

Status Channel::close() {
  if (!core_) {
    return {};
  }
  Status status = locked(*core_, [](detail::ChannelCore& core) { return core.close(); });
  core_.reset();
  return status;
}

void Channel::drop() noexcept {
  if (!core_) {
    return;
  }
  locked(*core_, [](detail::ChannelCore& core) {
    core.drop();
    return 0;
  });
  core_.reset();
}

int Channel::fd() const { return core_ ? core_->fd() : -1; }

Readiness Channel::readiness() {
  if (!core_) {
    Readiness closed;
    closed.error = true;
    closed.readable = true;
    return closed;
  }
  return locked(*core_, [](detail::ChannelCore& core) { return core.readiness(); });
}

Status Channel::map(void* buffer, std::size_t length, std::uint64_t offset) {
  if (!core_) {
    return not_open();
  }
  return locked(*core_,
                [&](detail::ChannelCore& core) { return core.map(buffer, length, offset); });
}

Status Channel::unmap(std::uint64_t offset) {
  if (!core_) {
    return not_open();
  }
  return locked(*core_, [&](detail::ChannelCore& core) { return core.unmap(offset); });
}

IoResult Channel::iowrite(std::span<const std::byte> data, std::uint64_t offset,
                          Blocking blocking) {
  if (!core_) {
    return IoResult::failed(not_open());
  }
  return locked(*core_,
                [&](detail::ChannelCore& core) { return core.iowrite(data, offset, blocking); });
}

ChannelCounters Channel::counters() const {
  if (!core_) {
    return {};
  }
  return locked(*core_, [](detail::ChannelCore& core) { return core.counters(); });
}

const std::string& Channel::peer() const { return core_ ? core_->peer_name() : no_peer(); }

const ChannelOptions& Channel::options() const { return core_ ? core_->options() : no_options(); }

std::optional<std::size_t> wait_any(std::span<Channel* const> channels, Interest interest,
                                    std::chrono::milliseconds timeout) {
  const auto deadline = detail::Clock::now() + timeout;
  std::vector<pollfd> fds(channels.size());
  while (true) {
    std::chrono::milliseconds slice = std::chrono::milliseconds::max();
    for (std::size_t i = 0; i < channels.size(); ++i) {
      const Readiness state = channels[i]->readiness();
      const bool read = state.readable || state.error || state.hangup;
      const bool ready = interest == Interest::kRead    ? read
                         : interest == Interest::kWrite ? state.writable || state.error
                                                        : read || state.writable;
      if (ready) {
        return i;
      }
      fds[i] = pollfd{channels[i]->fd(), POLLIN, 0};
      slice = std::min(slice, channels[i]->options().wake_up_interval);
    }
    const auto now = detail::Clock::now();
    if (now >= deadline) {
      return std::nullopt;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    (void)::poll(fds.data(), fds.size(), static_cast<int>(std::min(left, slice).count()));
  }
}

}  // namespace railyard::rstream
