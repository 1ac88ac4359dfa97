// Length-prefixed typed messages over a stream channel, for the bootstrap
// and control protocols. Each frame is an 8-byte header (u32 payload
// length, u16 type, u16 reserved = 0, little-endian) and the payload.
#pragma once

#include <array>
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

// Receives frames without waiting, for a loop that polls many channels: a
// peer that sends half a frame and stops must not hold the reader up. Keeps
// the part of a frame received so far between calls.
class FrameReader {
 public:
  explicit FrameReader(std::size_t max_payload = kDefaultMaxFrame) : max_payload_(max_payload) {}

  // kOk: `out` holds the next whole frame. Would-block: nothing more has
  // arrived yet (call again when the channel is readable). End of stream:
  // the peer shut down between frames. An error as receive_frame's.
  IoResult read(Channel& channel, Frame& out);

 private:
  std::size_t max_payload_;
  std::array<std::byte, kFrameHeaderSize> header_{};
  std::size_t header_bytes_ = 0;
  Frame frame_;
  std::size_t payload_bytes_ = 0;
};

}  // namespace railyard::rstream
