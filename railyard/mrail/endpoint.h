// One logical endpoint over several rails: what libfabric's ofi_mrail offers,
// with medium messages striped without a rendezvous, ordered matching per
// peer whatever rail a message took, tagged and untagged traffic kept apart,
// and per-rail counters.
//
// Any thread may call an Endpoint; every call holds the endpoint's lock, so
// calls from several threads, and the process's background-progress thread
// (Options::background_progress) progressing it while its user computes, are
// serialised. A wait holds the lock only while it polls: it hands it to a
// thread that asks for it and lets go of it while it sleeps on the rails
// (see ProgressLock), so a thread posting a send never waits behind another
// thread's receive. Every operation is non-blocking: it returns a Status
// saying whether it started, and the Request finishes from progress() (or
// a wait, in any thread).
//
// Protocols (docs/architecture.md, docs/wire-formats.md):
// - Eager, up to Options::eager_limit: the payload is cut into pieces by the
//   size's policy (FI_OFI_MRAIL_CONFIG) and the pieces into fragments, each
//   sent with a header carrying the sequence number, tag, total length and
//   offset into the receivers' pre-posted buffers; the receiver copies them
//   into place in any order.
// - Rendezvous, above it: the sender registers its buffer on its rails and
//   sends a request-to-send carrying the keys; once matched, the receiver
//   reads the pieces straight into the receive buffer over its rails, then
//   sends a FIN that completes the send.
// - Ordering: each peer's messages carry sequence numbers; a message is
//   matched only when all earlier ones were, so MPI's non-overtaking rule
//   holds across rails. A sender may run at most `window` messages ahead of
//   the receiver's credits, which bounds the reorder buffer.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/mrail/counters.h"
#include "railyard/mrail/options.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/mrail/regions.h"
#include "railyard/mrail/request.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/progress_lock.h"
#include "railyard/rail/rail.h"

namespace railyard::mrail {

namespace detail {
struct Core;
}  // namespace detail

// What a probe found: the oldest matching message whose turn has come.
struct ProbeResult {
  PeerId source;
  std::uint64_t tag = 0;
  std::uint64_t length = 0;
};

// One rail-to-rail route to a peer: our rail `local_rail` talking to the
// peer's rail `remote_rail` (indices in each endpoint's rail order).
struct PathInfo {
  std::size_t local_rail = 0;
  std::size_t remote_rail = 0;
  bool same_host = false;  // over the host rail (shared memory)
};

class Endpoint {
 public:
  // Opens every rail of `options` and posts receive buffers. Throws
  // ConfigError for bad options or environment, Error/FabricError when a rail
  // cannot open.
  explicit Endpoint(Options options);
  // Options::from_environment().
  Endpoint();
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  Endpoint(Endpoint&&) = delete;
  Endpoint& operator=(Endpoint&&) = delete;

  // This endpoint's address: its identity and every rail, for peers to insert.
  [[nodiscard]] const std::vector<std::byte>& address() const noexcept { return address_; }
  [[nodiscard]] std::uint64_t id() const noexcept;
  // Every rail, the host rail included (it comes last).
  [[nodiscard]] std::size_t rail_count() const noexcept;
  // The rails to other hosts: Options::rails, in that order.
  [[nodiscard]] std::size_t network_rail_count() const noexcept;
  // The index of the same-host rail, when Options::host_rail asked for one
  // and it opened.
  [[nodiscard]] std::optional<std::size_t> host_rail() const noexcept;
  [[nodiscard]] const rail::Rail& rail(std::size_t index) const;
  [[nodiscard]] std::size_t home_rail() const noexcept;
  [[nodiscard]] const Options& options() const noexcept;

  // Makes a peer reachable. Each of our rails pairs with a peer rail on the
  // same network and provider; the peer may list its rails in another order
  // and have another count. Throws Error when the blob is malformed or no rail
  // of ours shares a network with the peer's. Inserting the same endpoint
  // twice returns its existing id.
  PeerId insert_peer(std::span<const std::byte> blob);
  // The rail pairs carrying traffic to a peer.
  [[nodiscard]] std::vector<PathInfo> paths(PeerId id) const;

  // Tagged messages. A receive matches the oldest message from `source` (or
  // kAnySource) whose tag equals `tag` in every bit not set in `ignore`
  // (kAnyTag accepts any tag). A longer message completes the receive with
  // StatusCode::kTruncated after filling the buffer.
  [[nodiscard]] Status send(Request& request, PeerId peer, const void* data, std::size_t size,
                            std::uint64_t tag);
  [[nodiscard]] Status recv(Request& request, PeerId source, void* data, std::size_t size,
                            std::uint64_t tag, std::uint64_t ignore = 0);
  // Untagged messages: matched by source alone, never against tagged ones.
  [[nodiscard]] Status send_untagged(Request& request, PeerId peer, const void* data,
                                     std::size_t size);
  [[nodiscard]] Status recv_untagged(Request& request, PeerId source, void* data, std::size_t size);
  // Ends a posted receive that has not matched (StatusCode::kCanceled).
  [[nodiscard]] Status cancel(Request& request);

  // Whether a tagged message matching (source, tag, ignore) is waiting,
  // without receiving it. iprobe progresses once; probe waits up to timeout.
  [[nodiscard]] bool iprobe(PeerId source, std::uint64_t tag, std::uint64_t ignore,
                            ProbeResult& result);
  [[nodiscard]] bool probe(PeerId source, std::uint64_t tag, std::uint64_t ignore,
                           ProbeResult& result, std::chrono::nanoseconds timeout);

  // One-sided transfers, striped over every path to the peer.
  [[nodiscard]] MultiRegion register_memory(void* base, std::size_t length);
  // Throws Error for a malformed key blob or one lacking the peer's rails.
  [[nodiscard]] RemoteMultiRegion import_region(PeerId peer_id, std::span<const std::byte> blob);
  [[nodiscard]] Status put(Request& request, const MultiRegion& local, std::uint64_t local_offset,
                           const RemoteMultiRegion& remote, std::uint64_t remote_offset,
                           std::size_t size);
  [[nodiscard]] Status get(Request& request, const MultiRegion& local, std::uint64_t local_offset,
                           const RemoteMultiRegion& remote, std::uint64_t remote_offset,
                           std::size_t size);
  // The same from or into any local buffer: registered for the transfer
  // through the endpoint's registration cache, as rendezvous buffers are.
  [[nodiscard]] Status put(Request& request, const void* local, std::size_t size,
                           const RemoteMultiRegion& remote, std::uint64_t remote_offset);
  [[nodiscard]] Status get(Request& request, void* local, std::size_t size,
                           const RemoteMultiRegion& remote, std::uint64_t remote_offset);
  // Completes once every put to `remote` that completed before the call has
  // landed in the peer's memory, on every path.
  [[nodiscard]] Status flush(Request& request, const RemoteMultiRegion& remote);

  // Rail failover (docs/architecture.md): takes a path to a peer out of
  // service as a failure would, carrying what it held over the peer's other
  // paths; `reason` goes to the log. For tests and tools. Fails when the
  // peer has no failover (one network path, or Options::rail_timeout 0);
  // the peer fails when it was its last path.
  [[nodiscard]] Status take_path_down(PeerId id, std::size_t path, std::string_view reason);

  // `job_failed` says whether the job this endpoint serves has failed (its
  // user learns so from elsewhere, a control plane): once it has, requests
  // destroyed in flight are detached at once, not progressed up to the post
  // timeout, and closing waits for no acknowledgement. Set before the
  // endpoint is used; called holding the endpoint's lock, from any thread.
  void give_up_when(std::function<bool()> job_failed);

  // Progresses every rail once; returns the rail operations completed.
  std::size_t progress();
  // Progresses until done() or the timeout; spins, then blocks on the rails.
  // done() is called holding the endpoint's lock.
  bool progress_until(const std::function<bool()>& done, std::chrono::nanoseconds timeout);
  // Wakes every thread asleep in a wait, so it looks at its predicate again
  // (a progress thread told to stop).
  void wake_waiters();
  // Work outside the rails that can end this endpoint's waits (see
  // OutsideWork); `work` must outlive the endpoint's waits. Null: none.
  void set_outside_work(const rail::OutsideWork* work);
  bool wait(const Request& request, std::chrono::nanoseconds timeout);
  // Drives several endpoints from one thread (peers in one process).
  // Moves on, without waiting, sends and reads a call left in the
  // provider's hands (see record_outbound): for a library whose user
  // waits in another library's loop (the MPI shim, from MPI's progress
  // engine). One atomic load when none are left; nothing while another
  // call holds the endpoint.
  void progress_handed_over() noexcept;
  static bool progress_until(std::span<Endpoint* const> endpoints,
                             const std::function<bool()>& done, std::chrono::nanoseconds timeout);

  [[nodiscard]] EndpointCounters counters() const;

 private:
  friend class Request;  // ~Request calls abandon()

  // Progresses while no call holds the endpoint (the background thread).
  void background_turn() noexcept;
  // At the end of a call that may leave sends the provider has not
  // finished (the caller may not call again for long): records it for
  // progress_handed_over(). Under the lock.
  void record_outbound() noexcept;
  // Closing: sends every acknowledgement owed, asks every peer holding
  // unacknowledged messages for its own, and progresses until they come,
  // the peer fails, or the rail timeout passes.
  void linger() noexcept;
  // A request destroyed in flight (see Request).
  void abandon(Request& request) noexcept;
  void detach(Request& request) noexcept;

  class BackgroundTurn;
  using Lock = std::scoped_lock<rail::ProgressLock>;

  // Held by every call and every background turn. Recursive: a wait's
  // predicate may call into the endpoint (counters(), a new receive).
  mutable rail::ProgressLock mutex_;
  // The parts the endpoint is made of (detail/endpoint_core.h).
  std::unique_ptr<detail::Core> core_;
  std::vector<std::byte> address_;
  std::function<bool()> job_failed_;  // give_up_when()
  // Whether the last call or turn left outbound work (written under the
  // lock, read without it by progress_handed_over()).
  std::atomic<bool> outbound_left_{false};
  [[nodiscard]] bool given_up() const { return job_failed_ && job_failed_(); }
  // Registered with the background thread last, removed from it first.
  std::unique_ptr<BackgroundTurn> background_;
};

}  // namespace railyard::mrail
