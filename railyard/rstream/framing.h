// Length-prefixed typed messages over a stream channel, for the bootstrap
// and control protocols (the frame layout is in frame_assembler.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "railyard/common/status.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/frame_assembler.h"

namespace railyard::rstream {

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
  explicit FrameReader(std::size_t max_payload = kDefaultMaxFrame) : assembler_(max_payload) {}

  // kOk: `out` holds the next whole frame. Would-block: nothing more has
  // arrived yet (call again when the channel is readable). End of stream:
  // the peer shut down between frames. An error as receive_frame's.
  IoResult read(Channel& channel, Frame& out);

 private:
  FrameAssembler assembler_;
};

}  // namespace railyard::rstream
