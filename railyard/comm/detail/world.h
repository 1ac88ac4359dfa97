// What every communicator of one job in this process shares: the bootstrap
// (control plane), the multi-rail endpoint with every rank inserted, the
// map between ranks and peers, and the requests the program released.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/comm/communicator_options.h"
#include "railyard/comm/detail/progress_thread.h"
#include "railyard/comm/detail/rank_card.h"
#include "railyard/comm/detail/startup_steps.h"
#include "railyard/comm/request.h"
#include "railyard/mrail/endpoint.h"
#include "railyard/rail/progress.h"

namespace railyard::comm::detail {

struct Operation;

class World {
 public:
  // Opens this rank's endpoint on the rails mapped for it and exchanges
  // addresses through `bootstrap` (whose descriptors are the rank cards),
  // each bootstrap call bounded by `setup_timeout`. `steps` holds the
  // start-up steps taken before (the card, the bootstrap); the rank logs
  // them with its own once it is ready.
  World(std::unique_ptr<bootstrap::Bootstrap> bootstrap, CommunicatorOptions options,
        std::chrono::milliseconds setup_timeout, StartupSteps steps = {});
  // Waits (up to the timeout) until every rank is done with the endpoint,
  // so none closes while a peer still reads from it, then closes.
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  World(World&&) = delete;
  World& operator=(World&&) = delete;

  [[nodiscard]] int rank() const noexcept { return bootstrap_->rank(); }
  [[nodiscard]] int size() const noexcept { return bootstrap_->size(); }
  [[nodiscard]] const HostPeers& host() const noexcept { return host_; }
  // The host a world rank is on (host_indexes()).
  [[nodiscard]] int host_index(int world_rank) const {
    return host_index_.at(static_cast<std::size_t>(world_rank));
  }
  [[nodiscard]] const CommunicatorOptions& options() const noexcept { return options_; }
  [[nodiscard]] mrail::Endpoint& endpoint() noexcept { return *endpoint_; }
  [[nodiscard]] bootstrap::Bootstrap& bootstrap() noexcept { return *bootstrap_; }
  [[nodiscard]] mrail::PeerId peer(int world_rank) const { return peers_.at(world_rank); }
  // The world rank of a peer the endpoint reports, -1 if unknown.
  [[nodiscard]] int world_rank_of(mrail::PeerId peer) const noexcept;

  // Progresses until done() or for `timeout` (none: unbounded), in slices
  // short enough that a failure the control plane reports (an abort, a lost
  // rank) ends the wait. Returns done(); throws the job's failure
  // (AbortError, RemoteError) when there is one. Other threads use the
  // endpoint while this one sleeps (see mrail::Endpoint).
  bool progress_until(const std::function<bool()>& done,
                      std::optional<std::chrono::milliseconds> timeout);
  // progress_until(request.done()), whose first slice is the endpoint's own
  // wait on the request: a blocking send or receive whose message is on its
  // way pays for no wrapper around its predicate.
  bool wait(const mrail::Request& request, std::optional<std::chrono::milliseconds> timeout);
  // Throws the job's failure, if the control plane reported one.
  void check_job() const;

  // A context id no communicator this process belongs to uses yet, agreed
  // by taking the largest candidate of the members (see Communicator::dup).
  [[nodiscard]] std::uint32_t context_candidate();
  void context_taken(std::uint32_t context);

  // Takes a released operation, completed in the background.
  void adopt(std::unique_ptr<Operation> operation);

  // An operation failed because a rank could not be reached (`message`
  // names it): this rank then leaves by telling every other rank, through
  // the control plane, rather than by waiting for them in a last barrier.
  void note_unreachable(const std::string& message) noexcept;
  // An operation failed or timed out (`message` says how, and whom it
  // waited for): what this rank tells the others if it leaves with an
  // exception unwinding.
  void note_error(const std::string& message) noexcept;

  // Work outside the endpoint's rails that this process's waits watch
  // (collectives over host segments; see OutsideWork).
  [[nodiscard]] rail::OutsideWork& outside_work() noexcept { return outside_work_; }

 private:
  // The rest of a wait whose first slice, of `slice`, did not end it.
  bool progress_after_first_slice(const std::function<bool()>& done,
                                  std::optional<std::chrono::milliseconds> timeout,
                                  std::chrono::nanoseconds slice);
  void reap_released();

  CommunicatorOptions options_;
  std::chrono::milliseconds setup_timeout_;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap_;
  HostPeers host_;
  std::vector<int> host_index_;     // by world rank
  rail::OutsideWork outside_work_;  // outlives the endpoint, which watches it
  std::unique_ptr<mrail::Endpoint> endpoint_;
  std::vector<mrail::PeerId> peers_;  // by world rank
  std::vector<int> rank_of_peer_;     // by PeerId::index
  std::mutex context_mutex_;
  std::uint32_t next_context_ = 1;  // 0 is the world's
  std::mutex released_mutex_;
  std::vector<std::unique_ptr<Operation>> released_;
  std::unique_ptr<ProgressThread> progress_thread_;  // stopped before the endpoint closes
  std::mutex unreachable_mutex_;
  std::string unreachable_;  // the first note_unreachable's message
  std::string last_error_;   // the last note_error's message
};

}  // namespace railyard::comm::detail
