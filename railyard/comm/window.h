// One-sided access to memory the ranks of a communicator expose (MPI's RMA
// windows). Each rank registers a buffer on every rail of its endpoint and
// the ranks exchange the keys; put and get then move bytes to or from a
// target rank's buffer without the target taking part, striped over every
// path to it by the multi-rail layer.
//
// Completion follows MPI's passive-target model: put and get only start a
// transfer; flush(rank) returns once every transfer this rank started to
// `rank` has completed at both ends (a put's bytes are in the target's
// memory, a get's in the origin buffer); fence() is flush_all() plus a
// barrier of the communicator, after which every rank's puts are visible
// in every window. Until then an origin buffer must stay valid and
// untouched.
//
// Every access is checked against the target's window size (exchanged at
// creation): one outside it is a UsageError naming the rank, the offset,
// the length and the size, never a corruption of the target's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "railyard/comm/communicator.h"

namespace railyard::comm {

namespace detail {
struct WindowState;
}

class Window {
 public:
  // Collective over `comm`: every rank exposes [base, base + bytes) (bytes
  // may be 0 and base then null). Throws UsageError for a null base with a
  // non-zero size, Error when the memory cannot be registered, and what
  // the communicator's messages throw (RemoteError, TimeoutError,
  // AbortError).
  Window(const Communicator& comm, void* base, std::size_t bytes);
  // Local: waits (up to the communicator's timeout, or 10 s) for this rank's
  // transfers still in flight, then withdraws the registration, so a put
  // from a rank that did not synchronise fails at that rank instead of
  // writing into memory that may be gone. Synchronise first (fence) so
  // every rank is done with every window.
  ~Window();
  Window(Window&& other) noexcept;
  Window& operator=(Window&& other) noexcept;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // The communicator's size and this rank's place in it.
  [[nodiscard]] int rank() const noexcept;
  [[nodiscard]] int size() const noexcept;
  // The size of `rank`'s window (UsageError for a rank outside).
  [[nodiscard]] std::size_t size_of(int rank) const;

  // Starts writing [origin, origin + bytes) at `offset` in `target`'s
  // window / reading from there into origin. UsageError when the range
  // falls outside the target's window, for a bad rank or a null origin;
  // RemoteError when the target already failed.
  void put(const void* origin, std::size_t bytes, int target, std::uint64_t offset);
  void get(void* origin, std::size_t bytes, int target, std::uint64_t offset);

  // Completes every transfer this rank started to `target` (or to every
  // rank) at both ends. Throws RemoteError naming the rank when one failed,
  // TimeoutError past the communicator's timeout.
  void flush(int target);
  void flush_all();
  // Collective: flush_all(), then a barrier of the communicator.
  void fence();

 private:
  std::unique_ptr<detail::WindowState> state_;
};

}  // namespace railyard::comm
