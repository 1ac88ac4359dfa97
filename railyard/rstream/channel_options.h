// What a stream channel is asked to be: ring and queue sizes, how it waits,
// how it notices a dead peer. Fields may be set freely before a connect or a
// listen; validate() (run by both) rejects a bad value naming the field.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace railyard::rstream {

inline constexpr const char* kDefaultStreamProvider = "tcp";

struct ChannelOptions {
  // libfabric provider of the FI_EP_MSG endpoints ("tcp", "verbs"). A
  // tcp:// or verbs:// address overrides it. Default RAILYARD_RSTREAM_PROVIDER
  // or "tcp".
  std::string provider = kDefaultStreamProvider;
  // Bytes staged for sending (copied here, then written into the peer's
  // receive ring) and bytes of the receive ring the peer writes into.
  std::size_t send_buffer_size = std::size_t{32} * 1024;
  std::size_t receive_buffer_size = std::size_t{32} * 1024;
  // How far those rings may grow while a stream runs, as TCP's buffers do
  // (tcp_rmem/tcp_wmem's maximum): a writer that keeps waiting for room in
  // the peer's ring tells it so, and the peer offers a ring four times as
  // large, up to its receive_buffer_max; the writer's send ring follows, up
  // to its send_buffer_max. A maximum no larger than the size turns growth
  // off. Control traffic never waits for room and keeps the small rings.
  std::size_t send_buffer_max = std::size_t{1} << 20;
  std::size_t receive_buffer_max = std::size_t{1} << 20;
  // Work queue depths; a few entries of each are kept for control messages.
  std::size_t send_queue_size = 384;
  std::size_t receive_queue_size = 384;
  // Writes up to this size skip the send ring and are injected straight
  // from the caller's buffer (capped by the provider's inject size).
  std::size_t inline_size = 64;
  // How long a waiting call polls before it blocks on the wait objects.
  std::chrono::microseconds polling_time{10};
  // Longest a blocked wait sleeps before it rechecks the channel.
  std::chrono::milliseconds wake_up_interval{500};
  // A connected channel with data or a probe outstanding for this long
  // without any sign of the peer fails with kUnreachable. Probes go out
  // after a third of it without traffic.
  std::chrono::seconds keepalive{10};
  // Whether a background thread progresses the channel between calls, so
  // that the peer's probes are answered while this process is busy
  // elsewhere. Without it, on a provider that moves data only inside
  // libfabric calls (tcp), the process must call into the channel (any
  // call, readiness() or wait_any) more often than the peer's keepalive.
  bool background_progress = true;
  // Longest connect() waits for the peer to accept.
  std::chrono::milliseconds connect_timeout{10000};
  // Longest shutdown() and close() wait for queued data to leave.
  std::chrono::milliseconds shutdown_timeout{5000};
  // How many local buffers this side may map for the peer to write into
  // (iomap); 0 disables mapping.
  std::size_t iomap_size = 0;

  // Throws ConfigError naming the first invalid field (as "rstream option
  // <field>"), its value and the accepted range.
  void validate() const;

  // Defaults overridden by the RAILYARD_RSTREAM_* variables (see
  // docs/environment.md); throws ConfigError naming a bad variable.
  [[nodiscard]] static ChannelOptions from_environment();
};

// Accepted ranges, shared by validate() and the environment parser.
struct ChannelLimits {
  static constexpr std::size_t kMinBuffer = 4096;
  static constexpr std::size_t kMaxBuffer = std::size_t{256} << 20;  // fits the 29-bit length
  static constexpr std::size_t kMinQueue = 16;
  static constexpr std::size_t kMaxQueue = 65535;  // credits travel as u16
  static constexpr std::size_t kMaxInline = 4096;
  static constexpr std::size_t kMaxIomap = 1024;
  static constexpr long long kMaxPollingUs = 1'000'000;
  static constexpr long long kMaxMilliseconds = 3'600'000;
  static constexpr long long kMaxKeepaliveSeconds = 86'400;
};

}  // namespace railyard::rstream
