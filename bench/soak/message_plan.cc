#include "message_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace railyard::soak {
namespace {

// splitmix64's finaliser: every input bit moves every output bit.
std::uint64_t scramble(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Pool bytes beyond the largest message: where a message starts is drawn
// from this many offsets, so two messages rarely share their bytes.
constexpr std::size_t kPoolSlack = std::size_t{8} << 20;

}  // namespace

std::vector<SizeClass> size_classes(std::size_t max_size) {
  // Most messages small (as applications send them), a few large enough to
  // go by rendezvous; about 85 KB on average with a 4 MiB largest.
  std::vector<SizeClass> classes{
      {600, 1024}, {250, 16384}, {120, std::size_t{256} << 10}, {30, max_size}};
  for (auto& size_class : classes) {
    size_class.largest = std::min(size_class.largest, max_size);
  }
  return classes;
}

MessagePlan::MessagePlan(std::uint64_t seed, unsigned direction, std::size_t max_size)
    : seed_(scramble(seed * 2 + direction)), max_size_(max_size), pool_(max_size + kPoolSlack) {
  for (std::size_t i = 0; i < pool_.size(); i += 8) {
    const std::uint64_t word = scramble(seed_ ^ i);
    std::memcpy(pool_.data() + i, &word, std::min<std::size_t>(8, pool_.size() - i));
  }
}

std::uint64_t MessagePlan::mix(std::uint64_t a, std::uint64_t b) const noexcept {
  return scramble(seed_ ^ scramble(a * 0x100000001B3ULL + b));
}

Stream MessagePlan::stream_of(std::uint64_t index) const noexcept {
  // One in four untagged.
  return mix(index, 0xA5) % 4 == 0 ? Stream::kUntagged : Stream::kTagged;
}

MessageSpec MessagePlan::spec(Stream stream, std::uint64_t seq) const noexcept {
  MessageSpec out;
  out.stream = stream;
  out.seq = seq;
  const std::uint64_t draw = mix(seq, 1 + static_cast<std::uint64_t>(stream));
  auto pick = static_cast<unsigned>(draw % 1000);
  std::size_t smallest = 0;
  for (const SizeClass& size_class : size_classes(max_size_)) {
    if (pick < size_class.per_mille) {
      const std::size_t span = size_class.largest - std::min(smallest, size_class.largest) + 1;
      out.size = std::min(smallest, size_class.largest) + (draw >> 16) % span;
      break;
    }
    pick -= size_class.per_mille;
    smallest = size_class.largest + 1;
  }
  out.tag = stream == Stream::kTagged ? (draw >> 40) % 1000 : 0;
  out.offset = static_cast<std::size_t>(mix(seq, 7 + static_cast<std::uint64_t>(stream)) %
                                        (pool_.size() - out.size + 1));
  return out;
}

std::span<const std::byte> MessagePlan::bytes(const MessageSpec& spec) const noexcept {
  return {pool_.data() + spec.offset, spec.size};
}

std::string MessagePlan::mismatch(const MessageSpec& spec,
                                  std::span<const std::byte> received) const {
  if (received.size() != spec.size) {
    return fmt::format("{} bytes where message {} of the {} stream has {}", received.size(),
                       spec.seq, spec.stream == Stream::kTagged ? "tagged" : "untagged", spec.size);
  }
  const auto expected = bytes(spec);
  const auto [at, _] = std::mismatch(received.begin(), received.end(), expected.begin());
  if (at != received.end()) {
    return fmt::format("message {} of the {} stream differs from byte {} of {}", spec.seq,
                       spec.stream == Stream::kTagged ? "tagged" : "untagged",
                       at - received.begin(), spec.size);
  }
  return {};
}

}  // namespace railyard::soak
