// What the benchmark measures through: one side of a two-process connection
// that posts tagged transfers from or into a buffer and waits for them. Each
// subject (a raw rail, rails in parallel, a railyard endpoint, ofi_mrail)
// implements it, so every subject runs the very same loops.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace railyard::bench {

// Payload bytes one rail carried: sent by the measuring (client) side,
// received by the answering (server) side.
struct RailBytes {
  std::string name;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

class BenchTransport {
 public:
  BenchTransport() = default;
  virtual ~BenchTransport() = default;
  BenchTransport(const BenchTransport&) = delete;
  BenchTransport& operator=(const BenchTransport&) = delete;
  BenchTransport(BenchTransport&&) = delete;
  BenchTransport& operator=(BenchTransport&&) = delete;

  // This side's address, for the peer's connect().
  [[nodiscard]] virtual std::vector<std::byte> address() = 0;
  virtual void connect(std::span<const std::byte> peer_address) = 0;
  // Slot `slot` (below the slot count given at construction) sends or
  // receives `size` bytes under `tag`. Slots share the data buffer, as osu_bw's do.
  virtual void post_send(std::size_t slot, std::size_t size, std::uint64_t tag) = 0;
  virtual void post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) = 0;
  // Returns once every posted transfer finished; throws std::runtime_error on
  // a failed transfer or after `timeout`.
  virtual void wait_all(std::chrono::milliseconds timeout) = 0;
  // Whether the subject has blocking sends and receives, as MPI_Send and
  // MPI_Recv: its latency is then measured with them, as osu_latency and
  // the Open MPI baseline measure it, by round_trip().
  [[nodiscard]] virtual bool has_blocking_calls() const { return false; }
  // One round trip of `size` bytes under `tag` by blocking calls: the
  // initiator sends, then receives; the other side receives, then sends.
  // Throws std::runtime_error on a failure.
  virtual void round_trip(std::size_t /*size*/, std::uint64_t /*tag*/, bool /*initiator*/) {}
  // Bytes each rail carried, for the report (empty when not known).
  [[nodiscard]] virtual std::vector<RailBytes> rail_bytes() const { return {}; }
};

}  // namespace railyard::bench
