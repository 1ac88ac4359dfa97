#include "railyard/comm/window.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <list>
#include <mutex>
#include <vector>

#include "railyard/comm/detail/group.h"
#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::comm {
namespace detail {
namespace {

// How long a window being destroyed waits for its transfers when the
// communicator has no timeout.
constexpr std::chrono::seconds kDrainTimeout{10};

}  // namespace

// One put or get in flight.
struct RmaOperation {
  mrail::Request request;
  int target = 0;
  bool put = false;
  std::size_t bytes = 0;
  std::uint64_t offset = 0;
};

struct WindowState {
  Communicator comm;
  std::optional<mrail::MultiRegion> local;                       // none for an empty window
  std::vector<std::uint64_t> sizes;                              // by rank
  std::vector<std::optional<mrail::RemoteMultiRegion>> remotes;  // by rank
  std::mutex mutex;                                              // guards what follows
  std::list<RmaOperation> in_flight;  // list: a started request never moves
  std::vector<bool> written;          // by rank: a put since its last flush

  explicit WindowState(Communicator communicator) : comm(std::move(communicator)) {}

  [[nodiscard]] World& world() const { return comm.world_state(); }
  [[nodiscard]] mrail::Endpoint& endpoint() const { return world().endpoint(); }
  [[nodiscard]] std::optional<std::chrono::milliseconds> timeout() const {
    return comm.options().timeout;
  }

  void check_rank(int rank, const char* what) const {
    if (rank < 0 || rank >= comm.size()) {
      throw UsageError(fmt::format("window {}: rank {} is outside the communicator of {} ranks",
                                   what, rank, comm.size()));
    }
  }

  void check_range(const char* what, std::size_t bytes, int target, std::uint64_t offset) const {
    check_rank(target, what);
    const std::uint64_t size = sizes[static_cast<std::size_t>(target)];
    if (offset > size || bytes > size - offset) {
      throw UsageError(fmt::format(
          "window {} of {} bytes at offset {} of rank {}'s window: outside it (the window holds "
          "{} bytes)",
          what, bytes, offset, target, size));
    }
  }

  // Checks a put or get and starts it with `post`.
  void start(bool put, const void* origin, std::size_t bytes, int target, std::uint64_t offset,
             const std::function<railyard::Status(mrail::Request&,
                                                  const mrail::RemoteMultiRegion&)>& post) {
    const char* what = put ? "put" : "get";
    check_range(what, bytes, target, offset);
    if (bytes == 0) {
      return;
    }
    if (origin == nullptr) {
      throw UsageError(
          fmt::format("window {} of {} bytes: the origin buffer is null", what, bytes));
    }
    world().check_job();
    // Posted outside `mutex` (a wait's predicate takes it under the
    // endpoint's lock, so the reverse order could deadlock), then spliced
    // in: a list node never moves, nor does the request in it.
    std::list<RmaOperation> node(1);
    RmaOperation& operation = node.front();
    operation.target = target;
    operation.put = put;
    operation.bytes = bytes;
    operation.offset = offset;
    const railyard::Status started =
        post(operation.request, *remotes[static_cast<std::size_t>(target)]);
    if (!started.ok()) {
      throw RemoteError(target, fmt::format("window {} of {} bytes to rank {} could not start: {}",
                                            what, bytes, target, started.to_string()));
    }
    const std::scoped_lock lock(mutex);
    in_flight.splice(in_flight.end(), node);
    if (put) {
      written[static_cast<std::size_t>(target)] = true;
    }
  }

  // Whether every transfer to `target` (-1: to any rank) has finished.
  [[nodiscard]] bool finished(int target) {
    const std::scoped_lock lock(mutex);
    return std::all_of(in_flight.begin(), in_flight.end(), [&](const RmaOperation& operation) {
      return (target >= 0 && operation.target != target) || operation.request.done();
    });
  }

  // Waits for every transfer to `target` (-1: any), drops them, and throws
  // for the first that failed.
  void complete(int target) {
    if (!world().progress_until([&] { return finished(target); }, timeout())) {
      throw TimeoutError(
          fmt::format("window flush{}: transfers still in flight after the communicator's timeout",
                      target >= 0 ? fmt::format(" to rank {}", target) : std::string()));
    }
    std::optional<std::string> failure;
    int failed_rank = -1;
    {
      const std::scoped_lock lock(mutex);
      // Only finished ones: another thread may have started more since.
      for (auto it = in_flight.begin(); it != in_flight.end();) {
        if ((target >= 0 && it->target != target) || !it->request.done()) {
          ++it;
          continue;
        }
        if (!it->request.status().ok() && !failure) {
          failed_rank = it->target;
          failure = fmt::format("window {} of {} bytes at offset {} of rank {}'s window failed: {}",
                                it->put ? "put" : "get", it->bytes, it->offset, it->target,
                                it->request.status().to_string());
        }
        it = in_flight.erase(it);
      }
    }
    if (failure) {
      throw RemoteError(failed_rank, *failure);
    }
  }

  // Makes every completed put to `target` visible in its memory.
  void make_visible(int target) {
    {
      const std::scoped_lock lock(mutex);
      if (!written[static_cast<std::size_t>(target)]) {
        return;
      }
      written[static_cast<std::size_t>(target)] = false;
    }
    mrail::Request request;
    const railyard::Status started =
        endpoint().flush(request, *remotes[static_cast<std::size_t>(target)]);
    if (!started.ok()) {
      throw RemoteError(target, fmt::format("window flush to rank {} could not start: {}", target,
                                            started.to_string()));
    }
    if (!world().progress_until([&] { return request.done(); }, timeout())) {
      throw TimeoutError(fmt::format(
          "window flush to rank {}: not done after the communicator's timeout", target));
    }
    if (!request.status().ok()) {
      throw RemoteError(target, fmt::format("window flush to rank {} failed: {}", target,
                                            request.status().to_string()));
    }
  }
};

}  // namespace detail

Window::Window(const Communicator& comm, void* base, std::size_t bytes)
    : state_(std::make_unique<detail::WindowState>(comm)) {
  if (base == nullptr && bytes != 0) {
    throw UsageError(fmt::format("window: a null base with a size of {} bytes", bytes));
  }
  detail::WindowState& state = *state_;
  std::vector<std::byte> key;
  if (bytes != 0) {
    state.local = state.endpoint().register_memory(base, bytes);
    key = state.local->remote_key();
  }
  const std::vector<std::vector<std::byte>> keys = comm.allgather_internal(key);
  const auto ranks = static_cast<std::size_t>(comm.size());
  state.sizes.assign(ranks, 0);
  state.remotes.resize(ranks);
  state.written.assign(ranks, false);
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    if (keys[rank].empty()) {
      continue;
    }
    const mrail::PeerId peer = state.world().peer(comm.world_rank(static_cast<int>(rank)));
    try {
      state.remotes[rank] = state.endpoint().import_region(peer, keys[rank]);
    } catch (const Error& error) {
      throw RemoteError(
          static_cast<int>(rank),
          fmt::format("window: the memory key of rank {} is unusable: {}", rank, error.what()));
    }
    state.sizes[rank] = state.remotes[rank]->length();
  }
}

Window::~Window() {
  if (!state_) {
    return;  // moved from
  }
  detail::WindowState& state = *state_;
  const auto timeout = state.comm.options().timeout.value_or(detail::kDrainTimeout);
  try {
    if (!state.world().progress_until([&] { return state.finished(-1); }, timeout)) {
      log::warn("window of rank {}: closing with transfers still in flight", rank());
    }
  } catch (const std::exception& error) {
    log::warn("window of rank {}: closing: {}", rank(), error.what());
  }
  // A request still in flight ends itself (mrail::Request's destructor),
  // before the registration goes.
  state.in_flight.clear();
  state.local.reset();
}

Window::Window(Window&&) noexcept = default;
Window& Window::operator=(Window&&) noexcept = default;

int Window::rank() const noexcept { return state_->comm.rank(); }
int Window::size() const noexcept { return state_->comm.size(); }

std::size_t Window::size_of(int rank) const {
  state_->check_rank(rank, "size_of");
  return state_->sizes[static_cast<std::size_t>(rank)];
}

void Window::put(const void* origin, std::size_t bytes, int target, std::uint64_t offset) {
  mrail::Endpoint& endpoint = state_->endpoint();
  state_->start(true, origin, bytes, target, offset,
                [&](mrail::Request& request, const mrail::RemoteMultiRegion& remote) {
                  return endpoint.put(request, origin, bytes, remote, offset);
                });
}

void Window::get(void* origin, std::size_t bytes, int target, std::uint64_t offset) {
  mrail::Endpoint& endpoint = state_->endpoint();
  state_->start(false, origin, bytes, target, offset,
                [&](mrail::Request& request, const mrail::RemoteMultiRegion& remote) {
                  return endpoint.get(request, origin, bytes, remote, offset);
                });
}

void Window::flush(int target) {
  state_->check_rank(target, "flush");
  state_->complete(target);
  state_->make_visible(target);
}

void Window::flush_all() {
  state_->complete(-1);
  for (int target = 0; target < size(); ++target) {
    state_->make_visible(target);
  }
}

void Window::fence() {
  flush_all();
  state_->comm.barrier_internal();
}

}  // namespace railyard::comm
