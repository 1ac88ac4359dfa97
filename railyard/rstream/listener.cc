#include "railyard/rstream/listener.h"
#include "railyard/common/detail/errno_text.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <sys/epoll.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "railyard/common/detail/log.h"
#include "railyard/common/detail/unique_fd.h"
#include "railyard/common/error.h"
#include "railyard/fabric/event_queue.h"
#include "railyard/fabric/passive_endpoint.h"
#include "railyard/rstream/detail/channel_core.h"
#include "railyard/rstream/detail/stream_fabric.h"

namespace railyard::rstream {
namespace {

// "host:port" of a socket address, or "unknown peer".
StreamAddress describe(const void* address, std::size_t length, const std::string& provider) {
  StreamAddress out;
  out.provider = provider;
  out.host = "unknown peer";
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (address == nullptr || length < sizeof(sockaddr)) {
    return out;
  }
  sockaddr_storage storage{};
  std::memcpy(&storage, address, std::min(length, sizeof(storage)));
  if (storage.ss_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, &storage, sizeof(v4));
    if (inet_ntop(AF_INET, &v4.sin_addr, text.data(), text.size()) != nullptr) {
      out.host = text.data();
    }
    out.port = ntohs(v4.sin_port);
  } else if (storage.ss_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, &storage, sizeof(v6));
    if (inet_ntop(AF_INET6, &v6.sin6_addr, text.data(), text.size()) != nullptr) {
      out.host = text.data();
    }
    out.port = ntohs(v6.sin6_port);
  }
  return out;
}

}  // namespace

struct Listener::State {
  ChannelOptions options;
  StreamAddress address;
  std::shared_ptr<StreamFabric> fabric;
  fabric::EventQueue eq;
  fabric::PassiveEndpoint endpoint;
  std::vector<std::unique_ptr<detail::ChannelCore>> pending;
  UniqueFd poll_set;

  State(ChannelOptions options_in, const StreamAddress& requested, fabric::FabricInfo info)
      : options(std::move(options_in)),
        fabric(std::make_shared<StreamFabric>(std::move(info))),
        eq(fabric->fabric()),
        endpoint(fabric->fabric(), *fabric->info().get()),
        poll_set(epoll_create1(EPOLL_CLOEXEC)) {
    endpoint.bind(eq);
    endpoint.listen();
    const auto name = endpoint.name();
    address = describe(name.data(), name.size(), fabric->limits().provider);
    if (address.host == "unknown peer") {
      address = requested;
    }
    if (!poll_set) {
      throw Error("epoll_create1", -errno,
                  fmt::format("creating the listener's poll set failed: {}", errno_text(errno)));
    }
    watch(eq.wait_fd(), EPOLL_CTL_ADD);
  }

  void watch(int fd, int op) const {
    if (fd < 0) {
      return;
    }
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    (void)epoll_ctl(poll_set.get(), op, fd, &event);
  }

  void take_requests() {
    while (auto event = eq.read()) {
      if (event->error != 0) {
        log::warn("rstream listener {}: connection error: {}", address.to_string(),
                  event->error_text);
        continue;
      }
      if (event->type != FI_CONNREQ || !event->info) {
        continue;
      }
      fi_info& request = *event->info.get();
      const std::string peer =
          describe(request.dest_addr, request.dest_addrlen, fabric->limits().provider).to_string();
      try {
        auto core = std::make_unique<detail::ChannelCore>(
            fabric, request, options, detail::ChannelCore::Role::kAccepting, peer);
        core->start_accept(event->data);
        watch(core->event_fd(), EPOLL_CTL_ADD);
        pending.push_back(std::move(core));
      } catch (const Error& e) {
        log::warn("rstream listener {}: refusing {}: {}", address.to_string(), peer, e.what());
        try {
          endpoint.reject(request.handle, {});
        } catch (const Error& reject) {
          log::debug("rstream listener: {}", reject.what());
        }
      }
    }
  }

  std::unique_ptr<detail::ChannelCore> take_established() {
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      bool done = false;
      try {
        done = (*it)->poll_established();
      } catch (const Error& e) {
        log::warn("rstream listener {}: {}", address.to_string(), e.what());
        done = true;
        watch((*it)->event_fd(), EPOLL_CTL_DEL);
        pending.erase(it);
        return nullptr;
      }
      if (done) {
        auto core = std::move(*it);
        watch(core->event_fd(), EPOLL_CTL_DEL);
        pending.erase(it);
        return core;
      }
    }
    return nullptr;
  }
};

Listener::Listener(std::string_view address, const ChannelOptions& options) {
  options.validate();
  const StreamAddress requested = parse_stream_address("rstream listen address", address);
  fabric::FabricInfo info = select_stream_info(requested, true, options);
  state_ = std::make_unique<State>(options, requested, std::move(info));
  log::debug("rstream listener at {}", state_->address.to_string());
}

Listener::Listener(std::string_view address)
    : Listener(address, ChannelOptions::from_environment()) {}

Listener::~Listener() = default;
Listener::Listener(Listener&&) noexcept = default;
Listener& Listener::operator=(Listener&&) noexcept = default;

const StreamAddress& Listener::address() const noexcept { return state_->address; }

int Listener::fd() const noexcept { return state_->poll_set.get(); }

std::optional<Channel> Listener::accept(std::chrono::milliseconds timeout) {
  const auto deadline = detail::Clock::now() + timeout;
  while (true) {
    state_->take_requests();
    // A failed request is dropped inside; look again until none is ready.
    for (std::size_t tries = state_->pending.size(); tries > 0; --tries) {
      if (auto core = state_->take_established()) {
        return Channel(std::move(core));
      }
    }
    // Arms the event queue's wait object (it stays signalled until a
    // trywait resets it), so fd() polls readable only on a new event.
    std::array<fid*, 1> fids{&state_->eq.get()->fid};
    const bool events_pending =
        fi_trywait(state_->fabric->fabric().get(), fids.data(), 1) == -FI_EAGAIN;
    const auto now = detail::Clock::now();
    if (now >= deadline) {
      return std::nullopt;
    }
    if (events_pending) {
      continue;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    // Pending connections are checked at least every few milliseconds:
    // their queues may not wake the poll set on every provider.
    const auto slice =
        state_->pending.empty() ? state_->options.wake_up_interval : std::chrono::milliseconds(5);
    pollfd fd{state_->poll_set.get(), POLLIN, 0};
    (void)::poll(&fd, 1, static_cast<int>(std::min(left, slice).count()));
  }
}

Channel Listener::accept() {
  while (true) {
    if (auto channel = accept(std::chrono::hours(1))) {
      return std::move(*channel);
    }
  }
}

}  // namespace railyard::rstream
