#include "railyard/rstream/framing.h"

#include <fmt/format.h>

#include <array>

namespace railyard::rstream {
namespace {

IoResult broken(const Channel& channel, const std::string& why) {
  return IoResult::failed(
      Status(StatusCode::kIoError, fmt::format("frame from {}: {}", channel.peer(), why)));
}

// What the stream's end means for a frame in progress.
IoResult ended(const Channel& channel, const FrameAssembler& assembler, const IoResult& got) {
  return assembler.between_frames() ? got : broken(channel, assembler.cut_short());
}

}  // namespace

Status send_frame(Channel& channel, std::uint16_t type, std::span<const std::byte> payload,
                  std::size_t max_payload) {
  if (payload.size() > max_payload || payload.size() > 0xFFFFFFFFU) {
    return {StatusCode::kInvalidArgument,
            fmt::format("frame of type {} to {}: payload of {} bytes exceeds the maximum of {}",
                        type, channel.peer(), payload.size(), max_payload)};
  }
  std::array<std::byte, kFrameHeaderSize> header{};
  encode_frame_header(type, static_cast<std::uint32_t>(payload.size()), header);
  IoResult sent = channel.send(header);
  if (sent.ok() && !payload.empty()) {
    sent = channel.send(payload);
  }
  return sent.ok() ? Status{} : sent.status;
}

IoResult receive_frame(Channel& channel, Frame& out, std::size_t max_payload) {
  FrameAssembler assembler(max_payload);
  for (;;) {
    IoResult got = channel.receive_all(assembler.space());
    const FrameAssembler::State state = assembler.received(got.bytes);
    if (got.end_of_stream()) {
      return ended(channel, assembler, got);
    }
    if (!got.ok()) {
      return got;
    }
    if (state == FrameAssembler::State::kMalformed) {
      return broken(channel, assembler.error());
    }
    if (state == FrameAssembler::State::kFrame) {
      out = assembler.take();
      return IoResult::done(out.payload.size());
    }
  }
}

IoResult FrameReader::read(Channel& channel, Frame& out) {
  for (;;) {
    IoResult got = channel.receive(assembler_.space(), Blocking::kNonBlocking);
    if (got.end_of_stream()) {
      return ended(channel, assembler_, got);
    }
    if (!got.ok()) {
      return got;
    }
    switch (assembler_.received(got.bytes)) {
      case FrameAssembler::State::kNeedMore:
        break;
      case FrameAssembler::State::kFrame:
        out = assembler_.take();
        return IoResult::done(out.payload.size());
      case FrameAssembler::State::kMalformed:
        return broken(channel, assembler_.error());
    }
  }
}

}  // namespace railyard::rstream
