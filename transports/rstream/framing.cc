#include "railyard/transports/rstream/framing.h"

#include <fmt/format.h>

#include <array>

#include "railyard/common/detail/byte_codec.h"

namespace railyard::rstream {

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
  const auto broken = [&](std::string why) {
    return IoResult::failed(
        Status(StatusCode::kIoError, fmt::format("frame from {}: {}", channel.peer(), why)));
  };
  if (got.end_of_stream()) {
    return broken(
        fmt::format("stream ended after {} of {} header bytes", got.bytes, kFrameHeaderSize));
  }
  if (!got.ok()) {
    return got;
  }
  ByteReader reader(header);
  const std::uint32_t length = reader.u32();
  const std::uint16_t type = reader.u16();
  const std::uint16_t reserved = reader.u16();
  if (reserved != 0) {
    return broken(
        fmt::format("header's reserved field is {:#x}, expected 0 (not a frame "
                    "boundary?)",
                    reserved));
  }
  if (length > max_payload) {
    return broken(fmt::format("frame of type {} announces {} bytes, more than the maximum of {}",
                              type, length, max_payload));
  }
  out.type = type;
  out.payload.resize(length);
  got = channel.receive_all(out.payload);
  if (got.end_of_stream()) {
    return broken(fmt::format("stream ended after {} of the {} payload bytes of a frame of type {}",
                              got.bytes, length, type));
  }
  if (!got.ok()) {
    return got;
  }
  return IoResult::done(length);
}

}  // namespace railyard::rstream
