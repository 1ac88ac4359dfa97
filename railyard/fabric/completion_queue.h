// Owner of a completion queue, with the wait object a blocked caller sleeps on.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include <chrono>
#include <cstddef>
#include <span>
#include <string>

#include "railyard/fabric/fabric.h"
#include "railyard/fabric/fid_handle.h"

namespace railyard::fabric {

// How a caller with nothing to do waits for the queue.
enum class WaitKind {
  kFd,     // poll() on a file descriptor, after fi_trywait says it is safe
  kSread,  // fi_cq_sread, which blocks inside the provider
  kNone,   // the provider offers nothing to block on: yield between polls
};

class CompletionQueue {
 public:
  // A tagged-format queue of `size` entries. Prefers a pollable fd, then a
  // provider wait object, then none: whichever the provider supports first.
  // Given `fabric`, the fd comes from a wait set of the queue's own (when the
  // provider takes one), so that clear_signal() can reset it.
  CompletionQueue(const Domain& domain, std::size_t size, const Fabric* fabric = nullptr);

  // Reads up to entries.size() completions. Returns the count (0 when empty)
  // or -FI_EAVAIL when an error completion is at the head of the queue.
  [[nodiscard]] long read(std::span<fi_cq_tagged_entry> entries) noexcept;
  // Pops the error completion at the head (only after read() gave -FI_EAVAIL).
  [[nodiscard]] bool read_error(fi_cq_err_entry& entry) noexcept;
  // The provider's text for an error completion.
  [[nodiscard]] std::string error_text(const fi_cq_err_entry& entry) const;

  // As read(), but blocks in the provider for up to `timeout` while the
  // queue is empty (kSread only).
  [[nodiscard]] long sread(std::span<fi_cq_tagged_entry> entries,
                           std::chrono::milliseconds timeout) noexcept;

  // What clear_signal() did.
  enum class SignalReset {
    kNoWaitSet,  // the queue has none: nothing was reset
    kQuiet,      // reset, and nothing is ready
    kReady,      // the wait set reports work ready
  };
  // Resets the wait fd's signal without blocking, when the queue has a wait
  // set (see the constructor): for a provider whose fi_trywait leaves it
  // set.
  SignalReset clear_signal() noexcept;

  [[nodiscard]] WaitKind wait_kind() const noexcept { return wait_kind_; }
  // The pollable descriptor when wait_kind() is kFd, else -1.
  [[nodiscard]] int wait_fd() const noexcept { return wait_fd_; }

  [[nodiscard]] fid_cq* get() const noexcept { return handle_.get(); }
  // Closes the queue, then its wait set (no endpoint may be bound to it).
  void close() noexcept {
    handle_.reset();
    wait_set_.reset();
    wait_fd_ = -1;
  }

 private:
  // Opens the queue on a new fd wait set (FI_WAIT_SET); false when the
  // provider refuses either.
  bool open_on_wait_set(const Domain& domain, std::size_t size, const Fabric& fabric);

  // Declared before the queue, which is bound to it: closed after it.
  FidHandle<fid_wait> wait_set_;
  FidHandle<fid_cq> handle_;
  WaitKind wait_kind_ = WaitKind::kNone;
  int wait_fd_ = -1;
};

}  // namespace railyard::fabric
