// One rail: one NIC driven through one reliable-datagram (FI_EP_RDM) libfabric
// endpoint. The multi-rail layer stripes over several of these; tools and
// tests use one directly.
//
// A Rail is driven by one thread at a time (its domain is opened with
// FI_THREAD_DOMAIN): callers that share one across threads serialize access.
// Every post is non-blocking. It returns a Status saying whether it was
// accepted; an accepted operation finishes later, exactly once, when
// progress() calls its RailOp::on_complete with a Completion.
#pragma once

#include <rdma/fabric.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/fabric/address_vector.h"
#include "railyard/fabric/completion_queue.h"
#include "railyard/fabric/endpoint.h"
#include "railyard/fabric/info.h"
#include "railyard/rail/bind_address.h"
#include "railyard/rail/buffer.h"
#include "railyard/rail/memory_regions.h"
#include "railyard/rail/rail_counters.h"
#include "railyard/rail/rail_limits.h"
#include "railyard/rail/rail_op.h"
#include "railyard/rail/rail_options.h"
#include "railyard/rail/request.h"

namespace railyard::rail {

// A peer inserted into one rail's address vector.
struct RailPeer {
  fi_addr_t address = FI_ADDR_NOTAVAIL;
  friend bool operator==(const RailPeer&, const RailPeer&) = default;
};

class Rail {
 public:
  // Told when a deferred post that has no operation to complete (an inject)
  // fails: its bytes never left, and the peer may be waiting for them.
  using PostFailureHandler = std::function<void(RailPeer peer, const Status& status)>;

  // Opens the provider's fabric, domain, address vector, completion queue and
  // endpoint at options.address. Throws ConfigError for a bad option or
  // environment variable, Error when the provider cannot carry a rail, and
  // FabricError when a libfabric call fails.
  explicit Rail(const RailOptions& options);
  // Options from the environment (RAILYARD_PROVIDER, RAILYARD_SPIN_US).
  Rail();
  ~Rail();

  Rail(const Rail&) = delete;
  Rail& operator=(const Rail&) = delete;
  Rail(Rail&&) = delete;
  Rail& operator=(Rail&&) = delete;

  [[nodiscard]] const RailLimits& limits() const noexcept { return limits_; }
  // Whether a write asked to confirm delivery does (false once the provider
  // refused FI_DELIVERY_COMPLETE; the write then went without it).
  [[nodiscard]] bool confirms_writes() const noexcept { return confirms_writes_; }
  // The rail's address as the provider prints it: "fi_sockaddr_in://127.0.0.1:40123".
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  // The address blob peers insert to reach this rail.
  [[nodiscard]] const std::vector<std::byte>& address() const noexcept { return address_; }
  // A peer's address blob as the provider prints it (as name() prints this rail's).
  [[nodiscard]] std::string address_name(std::span<const std::byte> address) const {
    return av_.to_string(address);
  }
  [[nodiscard]] const WaitPolicy& wait_policy() const noexcept { return options_.wait; }
  // Where the rail was bound, when options.address named a place.
  [[nodiscard]] const std::optional<BindAddress>& bind_address() const noexcept {
    return bind_address_;
  }
  [[nodiscard]] const RailCounters& counters() const noexcept { return counters_; }

  // Makes a peer's address blob usable as a destination. Throws Error when the
  // blob cannot be an address of this rail's provider.
  [[nodiscard]] RailPeer insert_peer(std::span<const std::byte> address);
  void remove_peer(RailPeer peer);

  // Registers [base, base + length) for sends, receives and RMA in both
  // directions. Throws FabricError when the provider refuses.
  [[nodiscard]] LocalRegion register_memory(void* base, std::size_t length);
  // Imports a peer's LocalRegion::remote_key(). Throws Error when the blob is
  // malformed or made by a provider with another key format.
  [[nodiscard]] RemoteRegion import_region(std::span<const std::byte> remote_key);

  // Untagged messages, received in the order receives were posted.
  [[nodiscard]] Status post_send(RailOp& op, RailPeer peer, ConstBuffer source);
  [[nodiscard]] Status post_recv(RailOp& op, MutableBuffer destination);
  // Tagged messages: a receive matches a message whose tag equals `tag` in
  // every bit not set in `ignore`. Receives accept any peer.
  [[nodiscard]] Status post_tagged_send(RailOp& op, RailPeer peer, ConstBuffer source,
                                        std::uint64_t tag);
  [[nodiscard]] Status post_tagged_recv(RailOp& op, MutableBuffer destination, std::uint64_t tag,
                                        std::uint64_t ignore = 0);
  // At most limits().inject_size bytes, no completion; the source may be
  // reused as soon as the call returns. An inject the provider refuses for
  // now (FI_EAGAIN) is copied and retried; if it then fails, the
  // on_post_failure handler is told, since no operation can carry the error.
  [[nodiscard]] Status inject(RailPeer peer, ConstBuffer source);
  [[nodiscard]] Status tagged_inject(RailPeer peer, ConstBuffer source, std::uint64_t tag);
  // One-sided transfers between local memory and bytes [offset, offset + size)
  // of a peer's region. A write asked to confirm delivery completes only
  // once its bytes are in the peer's memory (FI_DELIVERY_COMPLETE), where
  // the provider can tell (confirms_writes()); else, as every write does by
  // default, once the provider no longer needs the source.
  [[nodiscard]] Status post_write(RailOp& op, RailPeer peer, ConstBuffer source,
                                  const RemoteRegion& target, std::uint64_t offset,
                                  bool confirm_delivery = false);
  [[nodiscard]] Status post_read(RailOp& op, RailPeer peer, MutableBuffer destination,
                                 const RemoteRegion& source, std::uint64_t offset);

  // Who learns that a deferred inject failed (see PostFailureHandler). It
  // runs from progress() and may call this rail's posts and
  // fail_deferred_posts_to(). Without one, such a failure is logged as an
  // error.
  void on_post_failure(PostFailureHandler handler) { post_failure_ = std::move(handler); }

  // Ends every post to `peer` still deferred (the peer is gone), so they
  // stop holding up posts to other peers: operations complete (from the next
  // progress()) with `status`, injects are dropped. Returns how many.
  std::size_t fail_deferred_posts_to(RailPeer peer, const Status& status);

  // Closes the endpoint and opens it again at the same address, bound to the
  // same address vector (and a new completion queue), so peers reach it as
  // before.
  // For rail failover: a dead link holds the provider's operations for
  // minutes, and one that finished late would write into memory its owner
  // has moved on from. The provider discards what is posted to a closed
  // endpoint (fi_endpoint(3)), so none of these operations touches its
  // buffer afterwards; from the next progress() each completes with
  // StatusCode::kCanceled, saying `why`. Posts deferred and never issued
  // stay queued for the new endpoint. Every peer's connection to the old
  // endpoint breaks: what was on its way is lost, and the peer connects
  // again on its next post. Not from inside progress(). Returns an error,
  // changing nothing, when the provider needs endpoint-bound registrations
  // (FI_MR_ENDPOINT) or the rail was opened without a source address to
  // reopen at; and an error when the provider does not reopen at the same
  // address, the rail then closed, failing every post from then on.
  [[nodiscard]] Status reset(std::string_view why);

  // Asks for an in-flight operation to end early. If it had not finished, it
  // completes (from progress()) with StatusCode::kCanceled. An operation the
  // provider cancels on its own, with its connection, completes with
  // StatusCode::kUnreachable instead.
  [[nodiscard]] Status cancel(RailOp& op);

  // Reads the completion queue without blocking, runs the finished
  // operations' on_complete, and retries deferred posts. Returns the number of
  // operations completed. If an on_complete throws, every other completion
  // already read is still delivered and the deferred posts retried; then the
  // first exception is rethrown.
  std::size_t progress();

  // The owner's word that no peer is reached through this rail (an
  // endpoint whose peers all share its host talks to them over the host
  // rail alone), or that some are again. A peerless rail's completion queue
  // is then read by progress() at most once per `gap` while no operation of
  // its own is in flight, instead of on every call: reading an idle `net`
  // queue is a system call (epoll_wait), which waiters on a rail no peer
  // uses paid several times per message. Whatever a peer sends it anyway (one
  // the owner does not know yet, or one that fell back from shared memory)
  // is taken in within `gap`, and the first message it brings ends the
  // peerless state.
  void set_peerless(bool peerless, std::chrono::microseconds gap = kPeerlessPollGap) noexcept;
  [[nodiscard]] bool peerless() const noexcept { return peerless_; }
  static constexpr std::chrono::microseconds kPeerlessPollGap{100};

  // Progresses until `request` completes or `timeout` passes, spinning and
  // then blocking per wait_policy(). Returns request.done().
  bool wait(const Request& request, std::chrono::milliseconds timeout);

  // For waiters blocking on several rails at once (see progress.h).
  [[nodiscard]] fabric::WaitKind wait_kind() const noexcept { return cq_.wait_kind(); }
  [[nodiscard]] int wait_fd() const noexcept { return cq_.wait_fd(); }
  // True when sleeping on wait_fd() cannot miss an event (fi_trywait) and
  // the descriptor is quiet, so that a poll on it sleeps. A descriptor the
  // provider left signalled with no completion behind it is cleared first
  // (see clear_stale_signal()).
  [[nodiscard]] bool ready_to_block() noexcept;
  // Blocks inside the provider for up to `timeout` (WaitKind::kSread rails),
  // then completes what arrived.
  std::size_t progress_blocking(std::chrono::milliseconds timeout);
  // Posts the provider refused for now, still to be retried.
  [[nodiscard]] bool has_deferred_posts() const noexcept {
    return !tx_backlog_.empty() || !rx_backlog_.empty();
  }
  // Whether progress() may find work that wait_fd() does not announce:
  // sends and one-sided operations in flight (a provider may complete them
  // inside the post, writing a completion no descriptor signals),
  // completions made here, deferred posts. A waiter that polls the
  // descriptors to learn which rails to progress progresses these anyway.
  [[nodiscard]] bool has_unannounced_work() const noexcept {
    return outbound_in_flight_ != 0 || !local_completions_.empty() || has_deferred_posts();
  }

 private:
  struct Resources;

  // A post the provider refused with FI_EAGAIN, kept to retry in order.
  struct PendingPost {
    OpKind kind = OpKind::kSend;
    RailOp* op = nullptr;  // nullptr for injects
    fi_addr_t peer = FI_ADDR_UNSPEC;
    void* buffer = nullptr;
    std::size_t length = 0;
    void* descriptor = nullptr;
    std::uint64_t tag = 0;
    std::uint64_t ignore = 0;
    std::uint64_t remote_address = 0;
    std::uint64_t remote_key = 0;
    bool inject = false;
    bool confirm_delivery = false;         // a write: FI_DELIVERY_COMPLETE
    std::vector<std::byte> inject_copy{};  // an inject's bytes, owned while deferred
    std::chrono::steady_clock::time_point deferred_at{};
  };

  // Validates a post, then issues it or queues it behind deferred ones.
  [[nodiscard]] Status post(const char* what, PendingPost post);
  [[nodiscard]] Status check_remote(const char* what, std::size_t size, const RemoteRegion& region,
                                    std::uint64_t offset) const;
  [[nodiscard]] Status submit(PendingPost post, std::deque<PendingPost>& backlog);
  [[nodiscard]] long issue(const PendingPost& post) noexcept;
  [[nodiscard]] long write_confirmed(const PendingPost& post, void* buffer, void* context) noexcept;
  void drain(std::deque<PendingPost>& backlog);
  void fail_deferred(const PendingPost& post, Status status);
  // Hands a deferred post that was never issued its completion, delivered
  // by the next progress().
  void complete_unissued(const PendingPost& post, Status status);
  std::size_t deliver(std::span<const struct fi_cq_tagged_entry> entries);
  std::size_t deliver_error();
  // Counts and logs a completion of an operation that had completed
  // already; `what` describes it (read without touching the operation).
  void drop_stray(std::string_view what) noexcept;
  void mark_in_flight(RailOp& op) noexcept;
  [[nodiscard]] Status reopen();
  // How an operation ended by reset() completes.
  [[nodiscard]] Status ended_by_reset(const RailOp& op, std::string_view why) const;
  void finish(RailOp& op, const Completion& completion) noexcept;
  // Called in a catch block: keeps the exception if it is the first.
  void keep_escaped() noexcept;
  void rethrow_escaped();
  // Clears a wait descriptor that polls readable though fi_trywait allowed
  // sleeping; false when it still polls readable after that (work to do).
  bool clear_stale_signal() noexcept;

  RailOptions options_;
  std::optional<BindAddress> bind_address_;
  fabric::FabricInfo info_;
  RailLimits limits_;
  std::shared_ptr<Resources> resources_;
  fabric::AddressVector av_;
  fabric::CompletionQueue cq_;
  fabric::Endpoint endpoint_;
  std::vector<std::byte> address_;
  std::string name_;

  RailCounters counters_;
  std::deque<PendingPost> tx_backlog_;
  std::deque<PendingPost> rx_backlog_;
  // Completions produced outside the completion queue (canceled deferred
  // posts), handed out by the next progress().
  std::vector<std::pair<RailOp*, Completion>> local_completions_;
  // Where progress() reads completions: kept from call to call, since a
  // waiter polls an idle rail millions of times, and clearing a fresh 1.5 KB
  // batch on each call is work that buys nothing.
  std::vector<struct fi_cq_tagged_entry> completion_batch_;
  std::uint64_t next_requested_key_ = 1;
  // Sends, writes and reads in flight (see has_unannounced_work()).
  std::size_t outbound_in_flight_ = 0;
  // Every operation in flight, deferred ones included (for reset()).
  RailOp* in_flight_head_ = nullptr;
  // The contexts of operations the provider completed with an error and
  // that were not posted again since. libfabric 1.17's net reports a read
  // whose connection broke both as failed and, when reset() closes the
  // endpoint, as canceled; by then the operation may be freed, so the
  // second report is recognised by its context alone. Emptied when the
  // endpoint is reopened: the new one cannot report the old one's work.
  std::unordered_set<const void*> failed_contexts_;
  // Why the rail fails every post: a reset that could not reopen.
  std::optional<Status> closed_;
  // While reset() closes the endpoint: why (some providers flush what the
  // endpoint held as canceled, others drop it silently).
  std::optional<std::string> resetting_;
  bool in_progress_ = false;
  // See set_peerless().
  bool peerless_ = false;
  std::chrono::microseconds peerless_gap_{kPeerlessPollGap};
  std::chrono::steady_clock::time_point next_peerless_poll_{};
  bool confirms_writes_ = true;
  PostFailureHandler post_failure_;
  // The first exception an on_complete threw during this progress(), held
  // until the batch is delivered.
  std::exception_ptr escaped_;
};

}  // namespace railyard::rail
