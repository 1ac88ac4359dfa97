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

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "railyard/common/status.h"
#include "railyard/mrail/counters.h"
#include "railyard/mrail/options.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/mrail/regions.h"
#include "railyard/mrail/request.h"
#include "railyard/mrail/stripe_plan.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/progress_lock.h"
#include "railyard/rail/rail.h"

namespace railyard::mrail {

struct Header;
struct InboundMessage;
struct EndpointAddress;
struct RailDescriptor;
struct Path;
class MatchingEngine;
class RegistrationCache;
struct Peer;

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
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
  // Every rail, the host rail included (it comes last).
  [[nodiscard]] std::size_t rail_count() const noexcept { return rails_.size(); }
  // The rails to other hosts: Options::rails, in that order.
  [[nodiscard]] std::size_t network_rail_count() const noexcept { return network_rails_; }
  // The index of the same-host rail, when Options::host_rail asked for one
  // and it opened.
  [[nodiscard]] std::optional<std::size_t> host_rail() const noexcept { return host_rail_; }
  [[nodiscard]] const rail::Rail& rail(std::size_t index) const;
  [[nodiscard]] std::size_t home_rail() const noexcept { return home_rail_; }
  [[nodiscard]] const Options& options() const noexcept { return options_; }

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
  static bool progress_until(std::span<Endpoint* const> endpoints,
                             const std::function<bool()>& done, std::chrono::nanoseconds timeout);

  [[nodiscard]] EndpointCounters counters() const;

 private:
  friend class Request;  // ~Request calls abandon()

  class BackgroundTurn;
  class RxSlot;
  class TxSlot;
  class PieceOp;
  struct RailState;
  struct Outgoing;

  // Setting up. open_rail appends a rail, a host rail when `host` names the
  // host; open_host_rail opens Options::host_rail or says why not.
  void open_rail(const rail::RailOptions& rail_options, std::optional<std::string> host);
  void open_host_rail();
  [[nodiscard]] static RailDescriptor describe(const RailState& state);
  [[nodiscard]] double weight_of(std::size_t rail) const noexcept;
  // The path to a peer on this host over the host rail, if it has one there.
  [[nodiscard]] std::optional<Path> pair_host_rail(const EndpointAddress& remote);

  // Sending.
  [[nodiscard]] Status start_send(Request& request, PeerId peer, const void* data, std::size_t size,
                                  std::uint64_t tag, bool tagged);
  void transmit(Peer& peer, Request& request);
  void send_eager(Peer& peer, Request& request, const Header& header);
  void send_rendezvous(Peer& peer, Request& request, Header header);
  void send_control(Peer& peer, const Header& header);
  void send_control(Peer& peer, const Header& header, std::size_t path);
  void enqueue(std::size_t rail, Outgoing fragment);
  void pump(std::size_t rail);
  // Copies one message into a free send buffer of `rail` (there must be
  // one) behind its header, with the grant to `peer` filled in, and hands
  // it to the rail.
  void emit(std::size_t rail, Header& header, rail::RailPeer destination, PeerId peer,
            const std::byte* payload, std::size_t length, Request* owner);
  void release_waiting(Peer& peer);

  // Receiving.
  [[nodiscard]] Status start_recv(Request& request, PeerId source, void* data, std::size_t size,
                                  std::uint64_t tag, std::uint64_t ignore, bool tagged);
  void on_receive(RxSlot& slot, const rail::Completion& completion);
  // The inserted peer that sent `header`, or nullptr: then the message is
  // kept for when its sender is inserted, or dropped past the budget.
  Peer* find_source(std::size_t rail, const Header& header, std::span<const std::byte> message);
  // Reposts handled receive buffers, and sends the acknowledgements owed.
  // Reposting costs a provider call, so it stays off the path between a
  // message's arrival and its receiver seeing it, and off the path to the
  // next send: it runs after a send has left, as idle work, and at once
  // when half a rail's buffers are waiting.
  void repost();
  void repost(std::size_t rail);
  // What a wait does when it finds nothing (PollHint::on_idle), and
  // progress() after its round: repost(), and the clock-driven path checks
  // (check_paths), kept off the path of every send.
  void idle_work();
  // After `inserted` joined the peers: tells each rail whether any peer is
  // reached through it (Rail::set_peerless), so that a rail none uses (the
  // network rails of an endpoint whose peers all share its host) is read
  // now and then rather than on every poll. Looks at the new peer's paths
  // only, not at every peer's again. Logs each change once.
  void mark_peerless_rails(const Peer& inserted);
  void handle(std::size_t rail, std::span<const std::byte> message);
  // Tells the rail poller where the next message from `peer` most likely
  // arrives, from the rails its last ones arrived on (`rail` the latest).
  void expect_next_arrival(Peer& peer, std::size_t rail);
  void on_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                   std::size_t rail);
  // A fragment on_fragment could not hand straight to a waiting receive:
  // one of several, out of order, repeated, or not yet asked for. Kept out
  // of on_fragment so that the common case runs in a small function.
  void place_fragment(Peer& peer, const Header& header, std::span<const std::byte> payload,
                      std::size_t rail);
  void on_rts(Peer& peer, const Header& header, std::span<const std::byte> body);
  InboundMessage* locate(Peer& peer, const Header& header);
  void advance(Peer& peer);
  // Sends the peer a credit message when a quarter window has passed since
  // its last grant, unless unexpected messages are over budget;
  // release_credits() sends those held. Every message to the peer carries
  // a grant too (grant()), so traffic both ways needs no credit messages.
  void credit(Peer& peer);
  // The grant the next message to `peer` carries: the next sequence number
  // expected from it, or while unexpected messages are over budget the
  // last grant (see docs/wire-formats.md).
  [[nodiscard]] std::uint32_t grant(Peer& peer) noexcept;
  // Whether unexpected messages hold back `peer`'s credits: its own are over
  // their budget, or all are over the total and no posted receive names it.
  [[nodiscard]] bool over_budget(const Peer& peer) const noexcept;
  // Whether a posted receive names `peer` as its source.
  [[nodiscard]] bool awaited(const Peer& peer) const noexcept;
  void release_credits();
  // Unexpected messages entering and leaving the queue: their bytes count
  // against the budgets.
  void count_unexpected(Peer& peer, const InboundMessage& message);
  void uncount_unexpected(Peer& peer, const InboundMessage& message);
  void on_turn(Peer& peer, InboundMessage& message);
  void bind(Peer& peer, InboundMessage& message, Request& request);
  void try_finish(Peer& peer, InboundMessage& message);
  void start_pull(Peer& peer, InboundMessage& message, Request& request);
  [[nodiscard]] MatchingEngine& engine(bool tagged) noexcept;

  // Completions of rail operations.
  void on_sent(TxSlot& slot, const rail::Completion& completion);
  void on_piece(PieceOp& op, const rail::Completion& completion);
  // Keeps a piece the rail accepted with its request, counting it; or
  // records why the rail refused it. Returns whether it was accepted.
  static bool adopt_piece(Request& request, std::unique_ptr<PieceOp> op, const Status& posted);
  // Pipelined pulls (start_pull). pump_pulls posts the chunks of the lanes
  // waiting on `path`, first come first served, while they fit in its
  // window (Path::has_room_for), and when the path has nothing left to read,
  // help_other_paths has it take over the last chunks of the lane furthest
  // behind on the peer's other paths. post_pull_chunk reads `length` bytes
  // of lane `from_lane`'s share (its next chunk when it is `lane`, else its
  // last) over `lane`'s path; a chunk whose post fails ends its request's
  // pull (end_pull). drop_unposted takes the chunks never posted out of the
  // request's count, ends every lane and takes them off their paths'
  // queues; end_pull also fails the request and finishes it when nothing of
  // it is in flight any more.
  void pump_pulls(Path& path);
  // Lanes for `pieces` of the request's transfer (a pull, put or get, whose
  // LargeTransfer is set up), queued on their paths and pumped; finishes
  // the request at once when none can start.
  void start_lanes(Peer& peer, Request& request, std::span<const StripePiece> pieces);
  void help_other_paths(Path& idle);
  [[nodiscard]] bool post_pull_chunk(Path& path, Request& request, std::size_t lane,
                                     std::size_t from_lane, std::uint64_t length);
  void drop_unposted(Request& request) noexcept;
  // Takes the request's turns off its paths' queues.
  void drop_turns(const Request& request) noexcept;
  void end_pull(Request& request, const Status& status);
  // One piece of the request finished (status: how); the last finishes it.
  void piece_done(Request& request, const Status& status);
  void pieces_done(Request& request);
  // Whether a transfer counted done still has chunks in flight (a miscount):
  // then it stays open until they complete.
  bool held_open(Request& request);
  void finish(Request& request);
  void fail_peer(Peer& peer, const Status& status);
  // A message to the peer over `rail` could not be sent: with failover its
  // path goes down, else the peer's stream is broken and it fails.
  void lost_message(PeerId peer, std::size_t rail, const Status& status);
  // Whether failover carries what went wrong on `rail` to the peer: its
  // path there is down and the messages it held go again over the others.
  [[nodiscard]] bool covered_by_failover(PeerId peer, std::size_t rail) const noexcept;

  // Rail failover (endpoint_failover.cc). A numbered message is kept
  // (Path::unacked) until an acknowledgement (take_ack) covers it; a receiver
  // counts the numbered messages that arrive in order on each path
  // (note_arrival) and acknowledges them every few (send_ack), over the
  // path they came by while it is up (reply_path). path_down takes a path
  // out of service: queued and unacknowledged messages go over the paths
  // left, pull and RMA shares waiting for it move to them (rescue_pulls),
  // and a chunk read or written over it that fails is moved again over them
  // (reread, spread_pull).
  [[nodiscard]] static std::uint32_t next_path_seq(std::uint32_t& sent) noexcept;
  void note_arrival(Peer& peer, const Header& header, std::size_t rail);
  void send_ack(Peer& peer, std::uint8_t sender_rail);
  // Every message to a peer carries an acknowledgement owed to it, if any
  // (attach_ack); those owed for 16 messages or more that nothing carried
  // go as kAck messages once the message that made them due is handled
  // (flush_acks, from repost()), at 64 at once.
  static void attach_ack(Peer& peer, Header& header) noexcept;
  void flush_acks();
  [[nodiscard]] static std::size_t reply_path(const Peer& peer, std::size_t arrival_rail) noexcept;
  // Takes an acknowledgement of our path on `path_rail`; false (and the
  // message dropped) when it names no path of ours or more than we sent.
  [[nodiscard]] bool take_ack(Peer& peer, std::uint8_t path_rail, std::uint8_t epoch,
                              std::uint32_t acked, std::size_t rail);
  void on_probe(Peer& peer, const Header& header, std::size_t rail);
  void on_probe_reply(Peer& peer, const Header& header);
  // Failure detection: arrivals and completed reads count as a path's
  // signs of life (note_activity); every eighth of the rail timeout,
  // check_paths probes a path with work pending that has been quiet for
  // half of it, and takes it down once quiet for all of it.
  static void note_activity(Peer& peer, std::size_t rail) noexcept;
  void check_paths();
  void send_probe(Peer& peer, std::size_t index);
  // A path down answered a probe (sent every Options::rail_retry): back in
  // service, in a new epoch.
  void path_up(Peer& peer, std::size_t index);
  void path_down(Peer& peer, std::size_t index, std::string_view reason);
  // Closing: sends every acknowledgement owed, asks every peer holding
  // unacknowledged messages for its own (a probe on each such path), and
  // progresses until they come, the peer fails, or the rail timeout passes.
  void linger() noexcept;
  void set_live_paths(Peer& peer, std::vector<std::size_t> up);
  void rescue_pulls(Peer& peer, Path& dead);
  // A flush's read that failed because its path went down: what that path
  // wrote is in the peer's memory if the rail confirmed delivery of its
  // writes (nothing left to flush there), else unknown (an error).
  [[nodiscard]] Status flush_over_failed_path(const PieceOp& op) const;
  [[nodiscard]] bool reread(Path& dead, Request& request, std::uint64_t offset,
                            std::uint64_t length);
  [[nodiscard]] bool spread_pull(Peer& peer, Request& request, std::uint64_t begin,
                                 std::uint64_t end);
  // A lane of a pull reading [begin, end) of the message over `path`;
  // false (the request failed) when its keys or registration are missing.
  [[nodiscard]] bool add_lane(Peer& peer, Request& request, std::size_t path, std::uint64_t begin,
                              std::uint64_t end);
  // Rail resets (endpoint_rail_reset.cc). A path that goes down with reads
  // or writes still posted over it (a dead link holds them for minutes, and
  // one that finished late would write into a buffer handed back to its
  // owner, here or at the peer) schedules a reset of its rail
  // (schedule_reset); idle work carries it out (reset_rails) outside the
  // rails' progress: every other peer's path on the rail goes down first,
  // the rail closes and reopens (Rail::reset), the reads and writes end
  // canceled and go again over the paths left, and every peer with a path
  // to the rail is told (kRailReset), so that it takes its path down and
  // resends what the old connection lost; a peer that had writes from us
  // in flight resets its end too (kFlagWritesInFlight). A reset that is
  // not `required` is skipped when nothing is held on the rail any more.
  void schedule_reset(std::size_t rail, std::string reason, bool required = false);
  void reset_rails();
  void reset_rail(std::size_t rail, const std::string& reason, bool required);
  void on_rail_reset(Peer& peer, const Header& header, std::size_t rail);
  // Fails posted kAnySource receives once no inserted peer is alive.
  void fail_orphaned_wildcards();
  // Fails every posted receive that names `source` (kAnySource: wildcards).
  void fail_posted_from(PeerId source, const Status& status);
  // The status for wildcard receives when every inserted peer has failed;
  // nullptr while one is alive or none was inserted.
  [[nodiscard]] const Status* every_peer_failed() const noexcept;
  void on_post_failure(std::size_t rail, rail::RailPeer address, const Status& status);

  // RMA.
  // The local side of a one-sided transfer: a registered region, or any
  // buffer (region null) registered through the cache.
  struct RmaLocal {
    std::byte* data = nullptr;
    const MultiRegion* region = nullptr;
    std::uint64_t region_offset = 0;
  };
  [[nodiscard]] Status start_rma(Request& request, RequestKind kind, const RmaLocal& local,
                                 const RemoteMultiRegion& remote, std::uint64_t remote_offset,
                                 std::size_t size);

  // Progresses while no call holds the endpoint (the background thread).
  void background_turn() noexcept;
  using Lock = std::scoped_lock<rail::ProgressLock>;

  // Requests destroyed in flight (see Request).
  void abandon(Request& request) noexcept;
  void detach(Request& request) noexcept;
  void on_orphan_piece(PieceOp& op) noexcept;

  [[nodiscard]] Peer* peer_of(PeerId id) const noexcept;
  [[nodiscard]] Status check_peer(PeerId id, const char* what) const;
  void track(Request& request) {
    active_.push_back(request);
    request.endpoint_ = this;
  }
  void drop(std::size_t rail, const std::string& why);

  // Held by every call and every background turn. Recursive: a wait's
  // predicate may call into the endpoint (counters(), a new receive).
  mutable rail::ProgressLock mutex_;
  Options options_;
  std::uint64_t id_ = 0;
  std::size_t home_rail_ = 0;
  std::vector<std::unique_ptr<RailState>> rails_;  // the network rails, then the host rail
  std::size_t network_rails_ = 0;
  std::optional<std::size_t> host_rail_;
  std::vector<rail::Rail*> rail_pointers_;  // for progress_until
  rail::PollHint poll_hint_;
  PeerId last_sender_;  // whose message arrived last (expect_next_arrival)
  std::vector<std::byte> address_;
  std::vector<std::unique_ptr<Peer>> peers_;
  std::unordered_map<std::uint64_t, PeerId> peer_ids_;  // by endpoint id
  // The peer whose message arrived last, looked up without hashing when
  // the next one is from it too (peers are never removed).
  Peer* last_source_ = nullptr;
  std::unique_ptr<MatchingEngine> tagged_;
  std::unique_ptr<MatchingEngine> untagged_;
  // Rendezvous sends waiting for their FIN, by transfer id.
  std::unordered_map<std::uint64_t, Request*> rendezvous_sends_;
  std::uint64_t next_transfer_id_ = 1;
  // Messages from endpoints not inserted yet, replayed by insert_peer.
  std::unordered_map<std::uint64_t, std::vector<std::pair<std::size_t, std::vector<std::byte>>>>
      strangers_;
  std::uint64_t stranger_bytes_ = 0;
  // Every request started and not finished, so closing can fail them.
  IntrusiveList<Request, &Request::active_hook_> active_;
  // Transfers of requests destroyed in flight, kept until the provider has
  // completed every operation they posted.
  std::vector<std::unique_ptr<LargeTransfer>> orphans_;
  EndpointCounters totals_;
  Status last_failure_;                 // see every_peer_failed()
  std::uint64_t unexpected_bytes_ = 0;  // every peer's Peer::unexpected_bytes
  std::size_t held_credits_ = 0;        // peers whose credit is held
  std::vector<StripePiece> pieces_;     // scratch for send_eager
  bool acks_due_ = false;               // some peer is owed a kAck (flush_acks)
  bool resets_due_ = false;             // some rail has a reset scheduled (reset_rails)
  std::chrono::steady_clock::time_point next_path_check_{};
  std::uint64_t probe_nonce_ = 0;
  std::uint32_t reset_notices_sent_ = 0;  // numbers them (RailResetNotice::number)
  // Registered with the background thread last, removed from it first.
  std::unique_ptr<BackgroundTurn> background_;
};

}  // namespace railyard::mrail
