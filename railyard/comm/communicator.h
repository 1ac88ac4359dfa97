// A group of ranks that talk point to point, as an MPI communicator: the
// world of a job (every rank) or a part of it made by split() or dup().
// Messages go over the multi-rail endpoint of this process, whose rails come
// from the topology mapping of this rank's host; ranks find each other
// through the bootstrap, which stays on as the control plane (aborts, lost
// ranks). docs/architecture.md, "Communicator".
//
// A Communicator is a handle: copies share the communicator. Any thread may
// call any communicator; calls on one endpoint are serialised, and blocking
// calls progress it in slices so that other threads' calls get through.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/comm/communicator_options.h"
#include "railyard/comm/request.h"
#include "railyard/mrail/counters.h"
#include "railyard/mrail/peer_id.h"

namespace railyard::comm {

namespace detail {
class World;
struct Group;
struct Operation;
struct WindowState;
struct CollectiveAccess;
}  // namespace detail

class Communicator {
 public:
  // The largest tag a message may carry (MPI_TAG_UB).
  static constexpr int kMaxTag = std::numeric_limits<int>::max();
  // split()'s color for a rank that joins no new communicator (MPI_UNDEFINED).
  static constexpr int kUndefinedColor = -1;

  // How a rank joins its job, given its descriptor (the rank card the
  // Communicator makes): make_bootstrap for world(); an MpiBootstrap for the
  // MPI shim; a RootBootstrap per thread for tests.
  using Join =
      std::function<std::unique_ptr<bootstrap::Bootstrap>(std::span<const std::byte> descriptor)>;

  // The world of the job this process belongs to: identity, bootstrap
  // (RAILYARD_BOOTSTRAP) and rails from the environment. Throws ConfigError
  // for a bad variable, what the bootstrap throws, Error when the rails
  // cannot open or a rank cannot be reached.
  [[nodiscard]] static Communicator world();
  [[nodiscard]] static Communicator world(const CommunicatorOptions& options, const Join& join,
                                          std::chrono::milliseconds setup_timeout);

  [[nodiscard]] int rank() const noexcept;
  [[nodiscard]] int size() const noexcept;
  // This rank among the ranks of the communicator on the same host (same
  // host identity; see host_identity.h).
  [[nodiscard]] int local_rank() const noexcept;
  [[nodiscard]] int local_size() const noexcept;
  // The host a rank of this communicator runs on: ranks with the same index
  // share a host. Hosts are numbered in the order of their lowest world rank.
  [[nodiscard]] int host_index(int rank) const;
  // How many hosts the communicator spans, and how many of its ranks each
  // has when every host has the same number (0 when they differ).
  [[nodiscard]] int host_count() const noexcept;
  [[nodiscard]] int ranks_per_host() const noexcept;
  // This communicator's context id (0 for the world).
  [[nodiscard]] std::uint32_t context() const noexcept;
  [[nodiscard]] const CommunicatorOptions& options() const noexcept;

  // Non-blocking messages. `data` must stay valid (and, for a receive,
  // untouched) until the request finishes. Throws UsageError for a rank
  // outside the communicator, a tag outside 0..kMaxTag (kAnyTag for
  // receives) or a null buffer with a non-zero size.
  [[nodiscard]] Request isend(const void* data, std::size_t bytes, int dest, int tag) const;
  [[nodiscard]] Request irecv(void* data, std::size_t bytes, int source, int tag) const;
  // Blocking forms, bounded by the communicator's timeout; they throw what
  // Request::wait throws (after a timeout the send or receive is ended as a
  // dropped Request's is). They allocate nothing.
  void send(const void* data, std::size_t bytes, int dest, int tag) const;
  Status recv(void* data, std::size_t bytes, int source, int tag) const;

  // Whether a message matching (source, tag) has arrived and is next in its
  // sender's order, without receiving it: its source, tag and length.
  [[nodiscard]] std::optional<Status> iprobe(int source, int tag) const;
  // Waits for one, up to the timeout (TimeoutError).
  [[nodiscard]] Status probe(int source, int tag) const;
  [[nodiscard]] Status probe(int source, int tag, std::chrono::milliseconds timeout) const;

  // Collective over this communicator: a communicator of the same ranks
  // whose messages never match this one's.
  [[nodiscard]] Communicator dup() const;
  // Collective: one new communicator per color, ranks ordered by key then
  // by rank here; nullopt for kUndefinedColor. Throws UsageError for a
  // negative color other than kUndefinedColor.
  [[nodiscard]] std::optional<Communicator> split(int color, int key) const;

  // A max over exactly the ranks of a group being formed, carried out by
  // whoever formed it (the MPI shim: MPI_Allreduce with MPI_MAX on the MPI
  // communicator of that group). Gets this rank's value, returns the largest.
  using AgreeOnMax = std::function<std::uint32_t(std::uint32_t mine)>;
  // Collective over the listed ranks of this communicator only, not over
  // all of it (MPI_Comm_create_group): a communicator of those ranks in the
  // order listed, for groups formed outside railyard. Every member lists
  // the same ranks, this one among them; the members agree on its context
  // id through `agree`, so its messages never match another communicator's
  // any of them belongs to. Throws UsageError for a rank outside this
  // communicator or listed twice, a list without this rank, or an `agree`
  // that returns less than it was given.
  [[nodiscard]] Communicator create_group(std::span<const int> ranks,
                                          const AgreeOnMax& agree) const;

  // Ends the job: every rank's pending and later calls throw AbortError
  // naming this rank, `code` and `reason` (through the control plane; under
  // PMIx the launcher ends the job). Never throws.
  void abort(int code, const std::string& reason) const noexcept;

  // The world rank of a rank of this communicator.
  [[nodiscard]] int world_rank(int rank) const;

  // Whether messages to and from a rank go through shared memory (it is on
  // this host and RAILYARD_SHM let it) rather than the rails.
  [[nodiscard]] bool shares_memory_with(int rank) const;
  // What this process's endpoint has moved over each rail, every
  // communicator of the job together; the same-host rail is flagged
  // host_only.
  [[nodiscard]] mrail::EndpointCounters counters() const;
  // Moves on, without waiting, the sends a call left in the provider's
  // hands (a bcast's root returns once its data is copied out): for a
  // program that waits in another library's loop and lets it call this
  // (the MPI shim, from MPI's progress engine). Cheap when none are left;
  // RAILYARD_BACKGROUND_PROGRESS does the same from its own thread.
  void progress_handed_over() const noexcept;
  // Wakes every thread of this process asleep in a wait on the job's
  // endpoint, so that it looks at what it waits for again: a thread that
  // completes requests others start, waiting with a stop condition
  // (Request::wait_any), learns of new ones without a timeout.
  void wake_waiters() const;

 private:
  friend struct detail::WindowState;
  friend class Window;
  friend struct detail::CollectiveAccess;

  // Settles where the group's members sit, then holds it.
  explicit Communicator(std::shared_ptr<detail::Group> group);

  void check_peer(int rank, const char* what, bool any_allowed) const;
  [[nodiscard]] std::uint64_t tag_for(int tag, const char* what, bool any_allowed) const;
  // The bits of the tag a receive or probe for `tag` ignores (kAnyTag: the user's).
  [[nodiscard]] static std::uint64_t ignore_for(int tag);
  // The endpoint's peer for a rank here (kAnySource: any peer).
  [[nodiscard]] mrail::PeerId peer_of(int rank) const;
  // Builds the Operation of a request and posts it.
  [[nodiscard]] Request start(bool receive, void* data, std::size_t bytes, int peer, int tag,
                              std::uint64_t wire, std::uint64_t ignore, const char* what) const;
  // The group, for an operation that lives within a call (send, recv).
  [[nodiscard]] std::shared_ptr<const detail::Group> borrowed_group() const noexcept;
  [[nodiscard]] Status probe_until(int source, int tag,
                                   std::optional<std::chrono::milliseconds> timeout) const;
  // The library's own messages (split), apart from the user's.
  [[nodiscard]] Request post_internal_send(const void* data, std::size_t bytes, int dest) const;
  [[nodiscard]] Request post_internal_recv(void* data, std::size_t bytes, int source) const;
  [[nodiscard]] Communicator derive(int color, int key) const;
  // The library's own collectives over its tag (communicator_exchange.cc),
  // bounded by the communicator's timeout: every rank's blob in rank order,
  // and a barrier.
  [[nodiscard]] std::vector<std::vector<std::byte>> allgather_internal(
      std::span<const std::byte> blob) const;
  void barrier_internal() const;
  [[nodiscard]] detail::World& world_state() const noexcept;

  detail::World* world_;  // group_->world, which keeps it open
  std::shared_ptr<const detail::Group> group_;
};

}  // namespace railyard::comm
