// What a stream operation did: moved bytes, would have had to wait, found
// the end of the stream, or failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "railyard/common/status.h"

namespace railyard::rstream {

enum class IoState : std::uint8_t {
  kOk,           // `bytes` were sent or received (at least one, unless asked for none)
  kWouldBlock,   // a non-blocking call could not move a byte without waiting
  kEndOfStream,  // the peer shut its side down and every byte it sent was read
  kError,        // see status; bytes moved before the failure are in `bytes`
};

struct IoResult {
  std::size_t bytes = 0;
  IoState state = IoState::kOk;
  Status status;

  [[nodiscard]] bool ok() const noexcept { return state == IoState::kOk; }
  [[nodiscard]] bool would_block() const noexcept { return state == IoState::kWouldBlock; }
  [[nodiscard]] bool end_of_stream() const noexcept { return state == IoState::kEndOfStream; }

  static IoResult done(std::size_t bytes) { return {bytes, IoState::kOk, {}}; }
  static IoResult blocked() { return {0, IoState::kWouldBlock, {}}; }
  static IoResult eof(std::size_t bytes = 0) { return {bytes, IoState::kEndOfStream, {}}; }
  static IoResult failed(Status status, std::size_t bytes = 0) {
    return {bytes, IoState::kError, std::move(status)};
  }
};

enum class Blocking : std::uint8_t { kBlock, kNonBlocking };

enum class ShutdownHow : std::uint8_t { kRead, kWrite, kBoth };

// What a channel can do now without waiting.
struct Readiness {
  bool readable = false;  // bytes to read, the end of the stream, or an error
  bool writable = false;  // room to send at least one byte
  bool hangup = false;    // the peer shut down or the connection is gone
  bool error = false;     // the channel failed; the next call reports why
};

// Per-channel traffic, for logs and tests.
struct ChannelCounters {
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t writes = 0;         // ring writes posted (each one or more bytes)
  std::uint64_t inline_writes = 0;  // of which injected straight from the caller's buffer
  std::uint64_t iomap_writes = 0;
  std::uint64_t control_sent = 0;
  std::uint64_t control_received = 0;
  std::uint64_t credit_waits = 0;  // times a send found no room or no credit at the peer
  std::uint64_t keepalive_probes = 0;
  std::uint64_t ring_growths = 0;  // larger receive rings offered to the peer
};

}  // namespace railyard::rstream
