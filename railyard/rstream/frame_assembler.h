// Length-prefixed frames assembled from a byte stream that arrives in
// pieces of any size, without a copy: the reader receives straight into
// space(). Each frame is an 8-byte header (u32 payload length, u16 type,
// u16 reserved = 0, little-endian) and the payload. The channel readers of
// framing.h use it; so can a reader with an event loop of its own, and the
// framing fuzzer, which needs no channel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace railyard::rstream {

inline constexpr std::size_t kFrameHeaderSize = 8;
inline constexpr std::size_t kDefaultMaxFrame = std::size_t{16} << 20;

struct Frame {
  std::uint16_t type = 0;
  std::vector<std::byte> payload;
};

// Writes a frame header (u32 payload length, u16 type, u16 0) at `out`.
void encode_frame_header(std::uint16_t type, std::uint32_t length,
                         std::span<std::byte, kFrameHeaderSize> out) noexcept;

class FrameAssembler {
 public:
  enum class State : std::uint8_t {
    kNeedMore,   // space() wants more bytes
    kFrame,      // a whole frame: take() it
    kMalformed,  // error() says why; the stream cannot be resynchronised
  };

  explicit FrameAssembler(std::size_t max_payload) noexcept : max_payload_(max_payload) {}

  // Where the next received bytes go: the rest of the header or of the
  // payload. Never empty while the state is kNeedMore.
  [[nodiscard]] std::span<std::byte> space() noexcept;

  // `count` bytes (at most space().size()) were received into space().
  State received(std::size_t count);

  // The frame just completed; the assembler starts on the next one.
  [[nodiscard]] Frame take();

  // Whether no byte of a frame has been received: the stream may end here.
  [[nodiscard]] bool between_frames() const noexcept {
    return header_bytes_ == 0 && state_ == State::kNeedMore;
  }

  // Why a stream that ended now was cut short (not between_frames()).
  [[nodiscard]] std::string cut_short() const;

  // Why the stream is malformed (state kMalformed).
  [[nodiscard]] const std::string& error() const noexcept { return error_; }

 private:
  std::size_t max_payload_;
  State state_ = State::kNeedMore;
  std::array<std::byte, kFrameHeaderSize> header_{};
  std::size_t header_bytes_ = 0;
  Frame frame_;
  std::size_t payload_bytes_ = 0;
  std::string error_;
};

}  // namespace railyard::rstream
