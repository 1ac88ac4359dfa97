// What the soak sends: for each direction, stream (tagged or untagged) and
// sequence number, a message whose size, tag and bytes both sides derive
// from the seed alone. The receiver can so tell a lost, duplicated,
// reordered, truncated or corrupted message from the message it expected
// at that place in its stream, without the sender telling it anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace railyard::soak {

enum class Stream : std::uint8_t { kTagged = 0, kUntagged = 1 };
inline constexpr std::size_t kStreams = 2;

struct MessageSpec {
  Stream stream = Stream::kTagged;
  std::uint64_t seq = 0;   // place in its stream, from 0
  std::size_t size = 0;    // 0 to the plan's largest size
  std::uint64_t tag = 0;   // tagged stream only
  std::size_t offset = 0;  // where its bytes start in the plan's pool
};

class MessagePlan {
 public:
  // `direction` tells the two directions' sequences apart (0: host a to
  // host b, 1: back).
  MessagePlan(std::uint64_t seed, unsigned direction, std::size_t max_size);

  // Which stream message `index` (0, 1, 2 ... of this direction) goes on.
  [[nodiscard]] Stream stream_of(std::uint64_t index) const noexcept;
  // Message number `seq` of `stream`.
  [[nodiscard]] MessageSpec spec(Stream stream, std::uint64_t seq) const noexcept;
  // Its bytes: a slice of the pool, which nobody writes after construction.
  [[nodiscard]] std::span<const std::byte> bytes(const MessageSpec& spec) const noexcept;
  // Whether `received` holds exactly the expected message's bytes; else
  // why not.
  [[nodiscard]] std::string mismatch(const MessageSpec& spec,
                                     std::span<const std::byte> received) const;

 private:
  [[nodiscard]] std::uint64_t mix(std::uint64_t a, std::uint64_t b) const noexcept;

  std::uint64_t seed_;
  std::size_t max_size_;
  std::vector<std::byte> pool_;
};

// The size classes the plan draws from, in order: each class's share of the
// messages and its largest size; the smallest size of a class is one more
// than the previous class's largest (0 for the first). With the default
// policy table, the classes fall on fixed, round-robin, eager striping and
// rendezvous striping.
struct SizeClass {
  unsigned per_mille;
  std::size_t largest;
};
[[nodiscard]] std::vector<SizeClass> size_classes(std::size_t max_size);

}  // namespace railyard::soak
