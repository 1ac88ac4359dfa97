// Two connected stream channels in one process over loopback: a listener on
// a free port, a connect from another thread, the accept here.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <exception>
#include <future>
#include <span>
#include <string>

#include "railyard/rstream/channel.h"
#include "railyard/rstream/listener.h"

namespace railyard::testing {

// Options that keep failure tests short; everything else is the default.
inline rstream::ChannelOptions quick_options() {
  rstream::ChannelOptions options;
  options.connect_timeout = std::chrono::milliseconds(5000);
  options.shutdown_timeout = std::chrono::milliseconds(2000);
  options.keepalive = std::chrono::seconds(2);
  return options;
}

// A string's bytes, to send.
inline std::span<const std::byte> bytes_of(const std::string& text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

// Receives exactly `size` bytes as text (fewer if the stream ends), failing
// the test on an error.
inline std::string receive_text(rstream::Channel& channel, std::size_t size) {
  std::string out(size, '\0');
  const rstream::IoResult got = channel.receive_all(std::as_writable_bytes(std::span(out)));
  EXPECT_TRUE(got.ok()) << got.status.to_string();
  out.resize(got.bytes);
  return out;
}

struct ChannelPair {
  rstream::Channel client;
  rstream::Channel server;

  explicit ChannelPair(const rstream::ChannelOptions& client_options = quick_options(),
                       const rstream::ChannelOptions& server_options = quick_options()) {
    rstream::Listener listener("tcp://127.0.0.1:0", server_options);
    const std::string address = "127.0.0.1:" + std::to_string(listener.port());
    auto connecting = std::async(
        std::launch::async, [&] { return rstream::Channel::connect(address, client_options); });
    auto accepted = listener.accept(std::chrono::seconds(10));
    client = connecting.get();
    if (!accepted) {
      throw std::runtime_error("no connection accepted within 10 s");
    }
    server = std::move(*accepted);
  }
};

}  // namespace railyard::testing
