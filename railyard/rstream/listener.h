// Accepts stream channels at an address.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "railyard/rstream/channel.h"
#include "railyard/rstream/channel_options.h"
#include "railyard/rstream/stream_address.h"

namespace railyard::rstream {

class Listener {
 public:
  // Listens at `address` ("host:port", "tcp://host:port", "verbs://...";
  // port 0 picks a free port, see address()). Accepted channels get
  // `options`. Throws ConfigError for a bad address or option, Error when
  // the address cannot be bound.
  Listener(std::string_view address, const ChannelOptions& options);
  explicit Listener(std::string_view address);  // options from the environment
  ~Listener();
  Listener(Listener&& other) noexcept;
  Listener& operator=(Listener&& other) noexcept;
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Where it listens, with the port it got.
  [[nodiscard]] const StreamAddress& address() const noexcept;
  [[nodiscard]] std::uint16_t port() const noexcept { return address().port; }

  // The next connected channel, waiting up to `timeout` (zero: only what is
  // ready now). A request that fails to connect is logged and skipped.
  [[nodiscard]] std::optional<Channel> accept(std::chrono::milliseconds timeout);
  // Waits as long as it takes.
  [[nodiscard]] Channel accept();

  // Polls readable when a connection may be ready to accept.
  [[nodiscard]] int fd() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace railyard::rstream
