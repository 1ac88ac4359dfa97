// A stream channel: a reliable, ordered byte stream between two processes,
// used like a socket, carried by a connection-oriented libfabric endpoint
// (tcp here, verbs on InfiniBand/RoCE) with RMA writes into the peer's
// receive ring (the rstream / rsockets design; see docs/architecture.md).
//
// Setup (connect, listen, accept) throws railyard::Error; data calls return
// an IoResult or a Status. Calls on one channel are serialised (a call
// holds it, blocking ones too), so use a channel from one thread at a time;
// different channels may be used from different threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "railyard/common/status.h"
#include "railyard/rstream/channel_options.h"
#include "railyard/rstream/io_result.h"

namespace railyard::rstream {

namespace detail {
class ChannelCore;
}

class Channel {
 public:
  // An empty channel: not connected, every call fails.
  Channel() noexcept;
  ~Channel();
  Channel(Channel&& other) noexcept;
  Channel& operator=(Channel&& other) noexcept;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Connects to a listener at `address` ("host:port", "tcp://host:port",
  // "verbs://host:port"), waiting up to options.connect_timeout. Throws
  // ConfigError for a bad address or option, Error naming the address when
  // the connection is refused, unreachable or times out.
  [[nodiscard]] static Channel connect(std::string_view address, const ChannelOptions& options);
  [[nodiscard]] static Channel connect(std::string_view address);  // options from the environment

  [[nodiscard]] bool is_open() const noexcept { return core_ != nullptr; }

  // Blocking: sends every byte (or fails). Non-blocking: sends what fits
  // now, or reports would-block. Bytes are copied before the call returns.
  IoResult send(std::span<const std::byte> data, Blocking blocking = Blocking::kBlock);
  // Receives at least one byte (blocking), or what is there (non-blocking).
  // End of stream once the peer shut down and everything was read.
  IoResult receive(std::span<std::byte> out, Blocking blocking = Blocking::kBlock);
  // Receives exactly out.size() bytes unless the stream ends or fails first.
  IoResult receive_all(std::span<std::byte> out);
  // As receive, but the bytes stay to be received again.
  IoResult peek(std::span<std::byte> out, Blocking blocking = Blocking::kBlock);

  // kWrite: the peer reads end of stream after every byte sent so far;
  // waits (up to options.shutdown_timeout) for queued bytes to leave.
  // kRead: later receives report end of stream; unread bytes are dropped.
  // kBoth: both, then disconnect.
  Status shutdown(ShutdownHow how);
  // Shuts down both ways and releases the connection. The destructor
  // closes too, logging what it cannot report.
  Status close();
  // Releases the connection at once: bytes still queued are dropped, for a
  // peer that is stopped or gone and would hold close() to its shutdown
  // timeout.
  void drop() noexcept;

  // A descriptor that polls readable (POLLIN) when the channel may have
  // become ready: bytes, end of stream, an error, or room to send after a
  // send would have blocked. Call readiness() (or try the operation) after
  // it wakes; readiness() also arms it when nothing is ready.
  [[nodiscard]] int fd() const;
  Readiness readiness();

  // iomap (rsockets' riomap / riowrite). map() lets the peer write
  // [buffer, buffer + length) directly, addressed as stream offset
  // `offset`; the buffer must stay valid until unmap() or close. At most
  // options.iomap_size mappings (0 disables iomap). iowrite() writes into
  // the peer's mapping covering `offset`; it is ordered with the stream, so
  // bytes sent after it tell the peer the data is there.
  Status map(void* buffer, std::size_t length, std::uint64_t offset);
  Status unmap(std::uint64_t offset);
  IoResult iowrite(std::span<const std::byte> data, std::uint64_t offset,
                   Blocking blocking = Blocking::kBlock);

  [[nodiscard]] ChannelCounters counters() const;
  // The peer as "provider://host:port".
  [[nodiscard]] const std::string& peer() const;
  [[nodiscard]] const ChannelOptions& options() const;

 private:
  friend class Listener;
  explicit Channel(std::unique_ptr<detail::ChannelCore> core);

  std::unique_ptr<detail::ChannelCore> core_;
};

enum class Interest : std::uint8_t { kRead, kWrite, kEither };

// Waits until one of `channels` is ready for `interest` (an error or a
// hangup counts as readable) or `timeout` passes. Returns the index of the
// first ready channel, or nullopt on timeout.
[[nodiscard]] std::optional<std::size_t> wait_any(std::span<Channel* const> channels,
                                                  Interest interest,
                                                  std::chrono::milliseconds timeout);

}  // namespace railyard::rstream
