// Length-prefixed typed messages over a stream channel, for the bootstrap
// and control protocols. Each frame is an 8-byte header (u32 payload
// length, u16 type, u16 reserved = 0, little-endian) and the payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/transports/rstream/channel.h"

namespace railyard::rstream {

inline constexpr std::size_t kFrameHeaderSize = 8;
inline constexpr std::size_t kDefaultMaxFrame = std::size_t{16} << 20;

struct Frame {
  std::uint16_t type = 0;
  std::vector<std::byte> payload;
};

// Sends one frame (blocking). kInvalidArgument when the payload exceeds
// `max_payload`.
Status send_frame(Channel& channel, std::uint16_t type, std::span<const std::byte> payload,
                  std::size_t max_payload = kDefaultMaxFrame);

// Receives one frame (blocking) into `out`. kOk with the frame; end of
// stream when the peer shut down between frames; an error when the stream
// ends inside a frame, a header is malformed or announces more than
// `max_payload` bytes (the stream cannot be resynchronised after that).
IoResult receive_frame(Channel& channel, Frame& out, std::size_t max_payload = kDefaultMaxFrame);

}  // namespace railyard::rstream
