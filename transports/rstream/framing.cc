#include "railyard/transports/rstream/framing.h"

#include <fmt/format.h>

#include <array>

#include "railyard/common/detail/byte_codec.h"

namespace railyard::rstream {
namespace {

IoResult broken(const Channel& channel, const std::string& why) {
  return IoResult::failed(
      Status(StatusCode::kIoError, fmt::format("frame from {}: {}", channel.peer(), why)));
}

// Decodes a received header into `out.type` and the payload length; an
// error when it cannot start a frame.
IoResult decode_header(const Channel& channel, std::span<const std::byte, kFrameHeaderSize> header,
                       std::size_t max_payload, Frame& out, std::uint32_t& length) {
  ByteReader reader(header);
  length = reader.u32();
  const std::uint16_t type = reader.u16();
  const std::uint16_t reserved = reader.u16();
  if (reserved != 0) {
    return broken(channel, fmt::format("header's reserved field is {:#x}, expected 0 (not a frame "
                                       "boundary?)",
                                       reserved));
  }
  if (length > max_payload) {
    return broken(channel,
                  fmt::format("frame of type {} announces {} bytes, more than the maximum of {}",
                              type, length, max_payload));
  }
  out.type = type;
  return IoResult::done(0);
}

IoResult ended_in_payload(const Channel& channel, std::size_t got, std::size_t length,
                          std::uint16_t type) {
  return broken(channel,
                fmt::format("stream ended after {} of the {} payload bytes of a frame of type {}",
                            got, length, type));
}

IoResult ended_in_header(const Channel& channel, std::size_t got) {
  return broken(channel,
                fmt::format("stream ended after {} of {} header bytes", got, kFrameHeaderSize));
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
  store_le(header.data(), payload.size(), 4);
  store_le(header.data() + 4, type, 2);
  store_le(header.data() + 6, 0, 2);
  IoResult sent = channel.send(header);
  if (sent.ok() && !payload.empty()) {
    sent = channel.send(payload);
  }
  return sent.ok() ? Status{} : sent.status;
}

IoResult receive_frame(Channel& channel, Frame& out, std::size_t max_payload) {
  std::array<std::byte, kFrameHeaderSize> header{};
  IoResult got = channel.receive_all(header);
  if (got.end_of_stream() && got.bytes == 0) {
    return got;
  }
  if (got.end_of_stream()) {
    return ended_in_header(channel, got.bytes);
  }
  if (!got.ok()) {
    return got;
  }
  std::uint32_t length = 0;
  if (IoResult decoded = decode_header(channel, header, max_payload, out, length); !decoded.ok()) {
    return decoded;
  }
  out.payload.resize(length);
  got = channel.receive_all(out.payload);
  if (got.end_of_stream()) {
    return ended_in_payload(channel, got.bytes, length, out.type);
  }
  if (!got.ok()) {
    return got;
  }
  return IoResult::done(length);
}

IoResult FrameReader::read(Channel& channel, Frame& out) {
  while (header_bytes_ < kFrameHeaderSize) {
    IoResult got =
        channel.receive(std::span(header_).subspan(header_bytes_), Blocking::kNonBlocking);
    if (got.end_of_stream()) {
      return header_bytes_ == 0 ? got : ended_in_header(channel, header_bytes_);
    }
    if (!got.ok()) {
      return got;
    }
    header_bytes_ += got.bytes;
    if (header_bytes_ == kFrameHeaderSize) {
      std::uint32_t length = 0;
      if (IoResult decoded = decode_header(channel, header_, max_payload_, frame_, length);
          !decoded.ok()) {
        return decoded;
      }
      frame_.payload.resize(length);
      payload_bytes_ = 0;
    }
  }
  while (payload_bytes_ < frame_.payload.size()) {
    IoResult got =
        channel.receive(std::span(frame_.payload).subspan(payload_bytes_), Blocking::kNonBlocking);
    if (got.end_of_stream()) {
      return ended_in_payload(channel, payload_bytes_, frame_.payload.size(), frame_.type);
    }
    if (!got.ok()) {
      return got;
    }
    payload_bytes_ += got.bytes;
  }
  const std::size_t length = frame_.payload.size();
  out = std::move(frame_);
  frame_ = Frame{};
  header_bytes_ = 0;
  payload_bytes_ = 0;
  return IoResult::done(length);
}

}  // namespace railyard::rstream
