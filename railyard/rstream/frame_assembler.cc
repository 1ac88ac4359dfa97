#include "railyard/rstream/frame_assembler.h"

#include <fmt/format.h>

#include <utility>

#include "railyard/common/detail/byte_codec.h"

namespace railyard::rstream {

void encode_frame_header(std::uint16_t type, std::uint32_t length,
                         std::span<std::byte, kFrameHeaderSize> out) noexcept {
  store_le(out.data(), length, 4);
  store_le(out.data() + 4, type, 2);
  store_le(out.data() + 6, 0, 2);
}

std::span<std::byte> FrameAssembler::space() noexcept {
  if (state_ != State::kNeedMore) {
    return {};
  }
  if (header_bytes_ < kFrameHeaderSize) {
    return std::span(header_).subspan(header_bytes_);
  }
  return std::span(frame_.payload).subspan(payload_bytes_);
}

FrameAssembler::State FrameAssembler::received(std::size_t count) {
  if (state_ != State::kNeedMore || count == 0) {
    return state_;
  }
  if (header_bytes_ < kFrameHeaderSize) {
    header_bytes_ += count;
    if (header_bytes_ < kFrameHeaderSize) {
      return state_;
    }
    const auto length = static_cast<std::uint32_t>(load_le(header_.data(), 4));
    const auto type = static_cast<std::uint16_t>(load_le(header_.data() + 4, 2));
    const auto reserved = static_cast<std::uint16_t>(load_le(header_.data() + 6, 2));
    if (reserved != 0) {
      error_ = fmt::format("header's reserved field is {:#x}, expected 0 (not a frame boundary?)",
                           reserved);
      return state_ = State::kMalformed;
    }
    if (length > max_payload_) {
      error_ = fmt::format("frame of type {} announces {} bytes, more than the maximum of {}", type,
                           length, max_payload_);
      return state_ = State::kMalformed;
    }
    frame_.type = type;
    frame_.payload.resize(length);
    payload_bytes_ = 0;
  } else {
    payload_bytes_ += count;
  }
  if (payload_bytes_ == frame_.payload.size()) {
    state_ = State::kFrame;
  }
  return state_;
}

Frame FrameAssembler::take() {
  Frame out = std::exchange(frame_, Frame{});
  header_bytes_ = 0;
  payload_bytes_ = 0;
  state_ = State::kNeedMore;
  return out;
}

std::string FrameAssembler::cut_short() const {
  if (header_bytes_ < kFrameHeaderSize) {
    return fmt::format("stream ended after {} of {} header bytes", header_bytes_, kFrameHeaderSize);
  }
  return fmt::format("stream ended after {} of the {} payload bytes of a frame of type {}",
                     payload_bytes_, frame_.payload.size(), frame_.type);
}

}  // namespace railyard::rstream
