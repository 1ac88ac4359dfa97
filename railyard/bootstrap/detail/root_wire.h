// The root rendezvous protocol's messages (docs/wire-formats.md, "Bootstrap
// over a root"): rstream frames whose type is a RootMessage and whose
// payload is one of the structures below, little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace railyard::bootstrap::detail {

using Blob = std::vector<std::byte>;

enum class RootMessage : std::uint16_t {
  kHello = 1,     // rank -> root: who I am, the job key, my descriptor
  kRefuse = 2,    // root -> rank: not admitted, and why
  kTable = 3,     // root -> rank: every rank's descriptor; the job is complete
  kSet = 4,       // rank -> root: store a key
  kGet = 5,       // rank -> root: ask for a key, answered once it is set
  kValue = 6,     // root -> rank: the answer to a get
  kGather = 7,    // rank -> root: a contribution to collective number `seq`
  kGathered = 8,  // root -> rank: the result of collective number `seq`
  kAbort = 9,     // either way: a rank aborted the job
  kFailed = 10,   // root -> rank: a rank was lost or misused the protocol
  kBye = 11,      // rank -> root: leaving in order
};

[[nodiscard]] const char* to_string(RootMessage type) noexcept;

inline constexpr std::uint32_t kHelloMagic = 0x53425952;  // "RYBS"
inline constexpr std::uint16_t kRootProtocolVersion = 1;
// Gather::root for an allgather (any other value: a broadcast from that rank).
inline constexpr std::uint32_t kEveryRank = 0xFFFFFFFFU;
// Longest reason text carried (an abort's, a refusal's); longer is cut.
inline constexpr std::size_t kMaxReason = 4096;

struct Hello {
  std::uint16_t version = kRootProtocolVersion;
  std::uint32_t rank = 0;
  std::uint32_t size = 0;
  std::string key;
  Blob descriptor;
};

enum class Refusal : std::uint16_t {
  kMalformed = 1,  // not a hello this version can read
  kVersion = 2,
  kKey = 3,
  kSize = 4,
  kRank = 5,       // out of range
  kDuplicate = 6,  // another connection already is that rank
  kComplete = 7,   // every rank had joined before this connection's turn
};

struct Refuse {
  Refusal reason = Refusal::kMalformed;
  std::string message;
};

struct Table {
  std::vector<Blob> descriptors;
};

struct SetKey {
  std::string key;
  Blob value;
};

struct GetKey {
  std::uint64_t id = 0;
  std::string key;
};

struct Value {
  std::uint64_t id = 0;
  Blob value;
};

struct Gather {
  std::uint64_t seq = 0;
  std::uint32_t root = kEveryRank;
  Blob blob;
};

struct Gathered {
  std::uint64_t seq = 0;
  std::vector<Blob> blobs;
};

struct Abort {
  std::uint32_t rank = 0;
  std::int32_t code = 0;
  std::string reason;
};

enum class FailureKind : std::uint16_t {
  kLost = 1,    // its connection broke without a bye
  kMisuse = 2,  // it called a different collective than the others
};

struct Failed {
  std::uint32_t rank = 0;
  FailureKind kind = FailureKind::kLost;
  std::string reason;
};

[[nodiscard]] Blob encode(const Hello& message);
[[nodiscard]] Blob encode(const Refuse& message);
[[nodiscard]] Blob encode(const Table& message);
[[nodiscard]] Blob encode(const SetKey& message);
[[nodiscard]] Blob encode(const GetKey& message);
[[nodiscard]] Blob encode(const Value& message);
[[nodiscard]] Blob encode(const Gather& message);
[[nodiscard]] Blob encode(const Gathered& message);
[[nodiscard]] Blob encode(const Abort& message);
[[nodiscard]] Blob encode(const Failed& message);

// Each fills `out` and returns true, or returns false with `error` saying
// what is wrong (short, trailing bytes, a bad magic or count).
bool decode(std::span<const std::byte> in, Hello& out, std::string& error);
bool decode(std::span<const std::byte> in, Refuse& out, std::string& error);
bool decode(std::span<const std::byte> in, Table& out, std::string& error);
bool decode(std::span<const std::byte> in, SetKey& out, std::string& error);
bool decode(std::span<const std::byte> in, GetKey& out, std::string& error);
bool decode(std::span<const std::byte> in, Value& out, std::string& error);
bool decode(std::span<const std::byte> in, Gather& out, std::string& error);
bool decode(std::span<const std::byte> in, Gathered& out, std::string& error);
bool decode(std::span<const std::byte> in, Abort& out, std::string& error);
bool decode(std::span<const std::byte> in, Failed& out, std::string& error);

}  // namespace railyard::bootstrap::detail
