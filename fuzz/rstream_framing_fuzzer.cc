// rstream's frames (frame_assembler.h) as they arrive from a peer, in
// pieces of whatever sizes the network cuts them into. The first two bytes
// choose the largest payload taken and the piece sizes; the rest is the
// stream. The assembler must find the same frames, the same malformed
// header or the same cut as a reading of the whole stream at once, however
// it is cut, and every frame it takes encodes back to the bytes it came
// from.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "railyard/common/detail/byte_codec.h"
#include "railyard/rstream/frame_assembler.h"

namespace {

using namespace railyard;
using rstream::FrameAssembler;
using rstream::kFrameHeaderSize;

// What a reading of the whole stream at once finds.
struct Expected {
  std::vector<rstream::Frame> frames;
  enum class End : std::uint8_t { kClean, kCut, kReserved, kTooLong } end = End::kClean;
};

Expected read_whole(std::span<const std::byte> stream, std::size_t max_payload) {
  Expected expected;
  std::size_t at = 0;
  while (at < stream.size()) {
    if (stream.size() - at < kFrameHeaderSize) {
      expected.end = Expected::End::kCut;
      return expected;
    }
    const std::uint64_t length = load_le(stream.data() + at, 4);
    const auto type = static_cast<std::uint16_t>(load_le(stream.data() + at + 4, 2));
    if (load_le(stream.data() + at + 6, 2) != 0) {
      expected.end = Expected::End::kReserved;
      return expected;
    }
    if (length > max_payload) {
      expected.end = Expected::End::kTooLong;
      return expected;
    }
    if (stream.size() - at - kFrameHeaderSize < length) {
      expected.end = Expected::End::kCut;
      return expected;
    }
    const auto payload = stream.subspan(at + kFrameHeaderSize, length);
    expected.frames.push_back({type, {payload.begin(), payload.end()}});
    at += kFrameHeaderSize + length;
  }
  return expected;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) {
    return 0;
  }
  // Up to 1020 bytes a frame (0-255 x 4), so the length check is reached.
  const std::size_t max_payload = std::size_t{data[0]} * 4;
  std::uint32_t cuts = data[1] | 1U;  // an odd seed: the generator never sticks at 0
  const auto stream = fuzz::bytes_of(data + 2, size - 2);
  const Expected expected = read_whole(stream, max_payload);

  FrameAssembler assembler(max_payload);
  std::vector<rstream::Frame> frames;
  std::size_t at = 0;
  FrameAssembler::State state = FrameAssembler::State::kNeedMore;
  while (at < stream.size() && state != FrameAssembler::State::kMalformed) {
    const std::span<std::byte> space = assembler.space();
    fuzz::require(!space.empty(), "an assembler that needs more bytes offers no space");
    cuts = cuts * 1103515245U + 12345U;
    const std::size_t piece =
        std::min({space.size(), stream.size() - at, std::size_t{1} + ((cuts >> 16) % 64)});
    std::memcpy(space.data(), stream.data() + at, piece);
    at += piece;
    state = assembler.received(piece);
    if (state == FrameAssembler::State::kFrame) {
      frames.push_back(assembler.take());
      state = FrameAssembler::State::kNeedMore;
    }
  }

  fuzz::require(frames.size() == expected.frames.size(),
                "the assembler found another number of frames than the whole stream holds");
  std::size_t offset = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    fuzz::require(frames[i].type == expected.frames[i].type &&
                      frames[i].payload == expected.frames[i].payload,
                  "a frame assembled from pieces differs from the whole stream's");
    std::array<std::byte, kFrameHeaderSize> header{};
    rstream::encode_frame_header(frames[i].type,
                                 static_cast<std::uint32_t>(frames[i].payload.size()), header);
    fuzz::require(std::memcmp(header.data(), stream.data() + offset, kFrameHeaderSize) == 0,
                  "a frame's header does not encode back to its bytes");
    offset += kFrameHeaderSize + frames[i].payload.size();
  }
  switch (expected.end) {
    case Expected::End::kClean:
      fuzz::require(assembler.between_frames(), "a stream of whole frames ends inside one");
      break;
    case Expected::End::kCut:
      fuzz::require(state == FrameAssembler::State::kNeedMore && !assembler.between_frames(),
                    "a stream cut inside a frame is taken as ending between frames");
      fuzz::require(assembler.cut_short().find("stream ended after") != std::string::npos,
                    "a cut stream's reason does not say where it ended");
      break;
    case Expected::End::kReserved:
      fuzz::require(state == FrameAssembler::State::kMalformed &&
                        assembler.error().find("reserved field") != std::string::npos,
                    "a header with its reserved field set is not refused for it");
      break;
    case Expected::End::kTooLong:
      fuzz::require(state == FrameAssembler::State::kMalformed &&
                        assembler.error().find("more than the maximum") != std::string::npos,
                    "a frame longer than the maximum is not refused for it");
      break;
  }
  return 0;
}
