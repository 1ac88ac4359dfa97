// How a multi-rail endpoint is set up. Defaults follow ofi_mrail where it has
// one; every field can come from the environment (docs/environment.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/mrail/policy_table.h"
#include "railyard/mrail/rail_choice.h"
#include "railyard/rail/wait_policy.h"

namespace railyard::mrail {

// Whether registrations of user buffers for rendezvous are kept for reuse.
enum class RegistrationCacheMode {
  kAuto,  // keep them when the provider registers in software (no FI_MR_LOCAL
          // or FI_MR_ALLOCATED); pinning providers keep their own cache, which
          // watches for freed memory
  kOn,
  kOff,
};

// A rail that reaches only processes on this host (libfabric's shm): a peer
// whose address lists a host rail on the same host is reached over it alone,
// every other peer over the network rails.
struct HostRailOptions {
  std::string provider = "shm";
  // Names this host for pairing: two endpoints pair their host rails only
  // when these are equal. The Communicator uses its host identity
  // (hostname plus network namespace), since emulated hosts share /dev/shm.
  std::string host;
  // When the host rail cannot open, or a peer cannot be inserted on it,
  // throw (true) or warn and carry that traffic over the network rails.
  bool required = false;
  // Largest message to a same-host peer sent eagerly; larger ones go by
  // rendezvous, which the host rail carries as one read of the sender's
  // memory (CMA) instead of a copy into receive buffers and out again
  // (docs/benchmarks.md, "Tuning choices").
  std::uint64_t eager_limit = std::uint64_t{16} * 1024;
  // How much of each shm region (this endpoint's, and each same-host
  // peer's as it is inserted) is faulted in at once rather than page by
  // page as messages go round its command queue (railyard/shm/
  // region_prefault.h): with libfabric 1.17's defaults the queues fill the
  // first 276 KiB, and each page's first use is a fault on a message's path.
  // 0: none. Default: RAILYARD_SHM_PREFAULT, 1 MiB.
  std::uint64_t prefault_bytes = std::uint64_t{1} << 20;
};

struct Options {
  // One rail per entry (see rail_addresses.h); "" is the provider's default
  // interface. Default: FI_OFI_MRAIL_ADDR, or when unset the NICs the
  // topology maps to this local rank (rail_choice.h).
  std::vector<std::string> rails{std::string()};
  // libfabric provider for every rail. Default: RAILYARD_PROVIDER or net.
  std::string provider;
  // A same-host rail beside them, after them in the rail order. Not read
  // from the environment: the Communicator sets it (RAILYARD_SHM).
  std::optional<HostRailOptions> host_rail;
  // Default: FI_OFI_MRAIL_CONFIG.
  PolicyTable policies;
  // One positive weight per rail; empty means equal. Default: RAILYARD_RAIL_WEIGHTS.
  std::vector<double> rail_weights;
  // Smallest piece a striped transfer is split into. Default: RAILYARD_MIN_CHUNK, 64 KiB.
  std::uint64_t min_chunk = std::uint64_t{64} * 1024;
  // Largest message sent eagerly; larger ones use rendezvous, which reads
  // into the receiver's buffer without the two copies an eager message
  // takes (into a send buffer, out of a receive buffer) and without using
  // up the peer's receive buffers; below one fragment a rendezvous only
  // adds a request and a read before the data (docs/benchmarks.md, "Tuning
  // choices"). Default: RAILYARD_EAGER_LIMIT, 32 KiB.
  std::uint64_t eager_limit = std::uint64_t{32} * 1024;
  // A rendezvous receiver reads its share on each path in reads of at most
  // this many bytes, at most `pull_depth` chunks' worth in flight per path
  // across all messages from the peer (later messages' reads wait their
  // turn), instead of one read per path. A read's answer occupies the
  // path's connection until it is through: on a socket provider (net) the
  // rail's own control messages in the other direction (rendezvous
  // requests, reads, FINs) wait behind a whole multi-megabyte answer, and
  // two hosts exchanging large messages (an allreduce) then take turns
  // instead of both sending.
  // 0 reads each share in one piece. Network rails only: the host rail's
  // reads hold no connection and take each share whole. Default:
  // RAILYARD_PULL_CHUNK, 32 KiB: what a rank answers stands between its own
  // next read and the wire, so the bytes in flight per path bound how long
  // that read waits.
  std::uint64_t pull_chunk = std::uint64_t{32} * 1024;
  // Chunks of reads in flight per path, across messages: with many large
  // messages in flight both ways, unbounded reads queue each side's
  // requests and FINs behind the other's answers again. Default: RAILYARD_PULL_DEPTH, 4
  // (128 KiB per path with the default chunk).
  std::uint32_t pull_depth = 4;
  // Largest eager fragment payload: the size of each receive buffer, 1 KiB
  // or more. 0 chooses by provider: on ofi_rxm rails 16 KiB less the
  // 56-byte multi-rail header, so a fragment is ofi_rxm's eager buffer (it
  // segments anything larger); on others (net, shm) 32 KiB, a power of
  // two, so the power-of-two messages programs send travel in whole
  // fragments; larger fragments stall the net provider with two ranks per
  // host, sockets holding whole fragments unread (docs/benchmarks.md,
  // "Tuning choices"). Default: RAILYARD_FRAGMENT_SIZE, else 0.
  std::uint32_t fragment_size = 0;
  // Receive and send buffers per rail.
  std::uint32_t receive_buffers = 64;
  std::uint32_t send_buffers = 64;
  // Messages a peer may send ahead of the receiver's progress; a power of two.
  std::uint32_t window = 256;
  // The rail `fixed` uses. Unset: local rank (see local_rank.h) modulo
  // rails. From the environment without FI_OFI_MRAIL_ADDR: 0, the nearest
  // NIC the topology gave this rank.
  std::optional<std::size_t> home_rail;
  // Why home_rail, for the log ("set by the caller" when empty).
  std::string home_rail_reason;
  // How long each rail lets a post the provider keeps refusing wait before
  // it fails (see RailOptions::post_timeout). Default: RAILYARD_POST_TIMEOUT_MS.
  std::chrono::milliseconds post_timeout{10000};
  // Whether the process's background-progress thread progresses the
  // endpoint while its user is not calling in, so a rank computing for
  // longer than its peers' post timeout still takes in their messages (tcp
  // moves data only inside libfabric calls). Default:
  // RAILYARD_BACKGROUND_PROGRESS, 1.
  bool background_progress = true;
  // Rail failover (docs/architecture.md, "Rail failover"): while not 0,
  // messages to a peer with two or more network paths are kept until
  // acknowledged, and a path that fails goes down while what it carried
  // goes over the peer's other paths; a path with work pending that shows
  // no progress for this long and does not answer a probe, while another
  // path to the peer does, counts as failed. 0 turns failover off: nothing
  // is kept and a failed path fails its peer. Default:
  // RAILYARD_RAIL_TIMEOUT, 2 s.
  std::chrono::milliseconds rail_timeout{2000};
  // A peer silent on every path at once is paused, not cut off: its paths
  // stay up, and it fails only once silent this long with work pending
  // (0: never; its operations' own timeouts end the waits). A Communicator
  // sets its timeout (RAILYARD_TIMEOUT) here.
  std::chrono::milliseconds peer_timeout{0};
  // How often a path down is probed to bring it back. Default:
  // RAILYARD_RAIL_RETRY, 1 s.
  std::chrono::milliseconds rail_retry{1000};
  // Payload bytes of unexpected messages (arrived, not yet asked for) held
  // per peer and in total before the receiver holds back credits, so senders
  // wait instead of memory growing. Beyond it, a sender may still send the
  // window its last credit allowed. Defaults: RAILYARD_UNEXPECTED_PEER_BYTES,
  // 64 MiB; RAILYARD_UNEXPECTED_BYTES, 1 GiB.
  std::uint64_t unexpected_peer_bytes = std::uint64_t{64} << 20;
  std::uint64_t unexpected_bytes = std::uint64_t{1} << 30;
  RegistrationCacheMode registration_cache = RegistrationCacheMode::kAuto;
  std::uint64_t registration_cache_bytes = std::uint64_t{1} << 30;
  rail::WaitPolicy wait;

  // Every default above read from its environment variable. Throws
  // ConfigError naming the first invalid one.
  [[nodiscard]] static Options from_environment();
  // The same, with the rails (and home rail) already chosen: the
  // Communicator maps them from every local rank's real placement.
  [[nodiscard]] static Options from_environment(RailChoice rails);
};

// "1,1,2" or "0.5, 1.5": positive finite decimals, comma separated. Throws
// ConfigError naming `input`.
[[nodiscard]] std::vector<double> parse_rail_weights(std::string_view input, std::string_view text);

}  // namespace railyard::mrail
