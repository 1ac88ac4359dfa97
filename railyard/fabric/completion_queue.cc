#include "railyard/fabric/completion_queue.h"

#include <rdma/fi_errno.h>

#include <array>
#include <utility>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::fabric {

namespace {

fi_cq_attr queue_attributes(std::size_t size, fi_wait_obj object) {
  fi_cq_attr attr{};
  attr.size = size;
  attr.format = FI_CQ_FORMAT_TAGGED;
  attr.wait_obj = object;
  attr.wait_cond = FI_CQ_COND_NONE;
  return attr;
}

}  // namespace

bool CompletionQueue::open_on_wait_set(const Domain& domain, std::size_t size,
                                       const Fabric& fabric) {
  fi_wait_attr wait_attr{};
  wait_attr.wait_obj = FI_WAIT_FD;
  fid_wait* set = nullptr;
  int rc = fi_wait_open(fabric.get(), &wait_attr, &set);
  if (rc != 0) {
    log::debug("fi_wait_open refused: {}", fi_strerror(-rc));
    return false;
  }
  FidHandle<fid_wait> owned(set, "wait set");
  int fd = -1;
  rc = fi_control(&set->fid, FI_GETWAIT, &fd);
  if (rc != 0) {
    log::debug("fi_control(FI_GETWAIT) on a wait set failed: {}", fi_strerror(-rc));
    return false;
  }
  fi_cq_attr attr = queue_attributes(size, FI_WAIT_SET);
  attr.wait_set = set;
  fid_cq* raw = nullptr;
  rc = fi_cq_open(domain.get(), &attr, &raw, nullptr);
  if (rc != 0) {
    log::debug("fi_cq_open on a wait set refused: {}", fi_strerror(-rc));
    return false;
  }
  wait_set_ = std::move(owned);
  handle_ = FidHandle<fid_cq>(raw, "completion queue");
  wait_kind_ = WaitKind::kFd;
  wait_fd_ = fd;
  return true;
}

CompletionQueue::CompletionQueue(const Domain& domain, std::size_t size, const Fabric* fabric) {
  if (fabric != nullptr && open_on_wait_set(domain, size, *fabric)) {
    return;
  }
  struct Choice {
    fi_wait_obj object;
    WaitKind kind;
  };
  static constexpr std::array<Choice, 3> kChoices{{{FI_WAIT_FD, WaitKind::kFd},
                                                   {FI_WAIT_UNSPEC, WaitKind::kSread},
                                                   {FI_WAIT_NONE, WaitKind::kNone}}};
  int last_rc = 0;
  for (const auto& choice : kChoices) {
    fi_cq_attr attr = queue_attributes(size, choice.object);
    fid_cq* raw = nullptr;
    last_rc = fi_cq_open(domain.get(), &attr, &raw, nullptr);
    if (last_rc != 0) {
      log::debug("fi_cq_open with wait object {} refused: {}", static_cast<int>(choice.object),
                 fi_strerror(-last_rc));
      continue;
    }
    handle_ = FidHandle<fid_cq>(raw, "completion queue");
    wait_kind_ = choice.kind;
    if (choice.kind == WaitKind::kFd) {
      const int rc = fi_control(&raw->fid, FI_GETWAIT, &wait_fd_);
      if (rc != 0) {
        // An fd queue whose fd cannot be fetched is still usable by polling.
        log::debug("fi_control(FI_GETWAIT) failed: {}; the rail will poll", fi_strerror(-rc));
        wait_kind_ = WaitKind::kNone;
        wait_fd_ = -1;
      }
    }
    return;
  }
  check_fabric(last_rc, "fi_cq_open",
               "opening a completion queue (tried fd, provider and no wait object)");
}

CompletionQueue::SignalReset CompletionQueue::clear_signal() noexcept {
  if (!wait_set_) {
    return SignalReset::kNoWaitSet;
  }
  // fi_wait first resets the set's signal and checks the queue (0 when it
  // has work), then waits for what is left of a zero timeout: no time.
  return fi_wait(wait_set_.get(), 0) == 0 ? SignalReset::kReady : SignalReset::kQuiet;
}

long CompletionQueue::read(std::span<fi_cq_tagged_entry> entries) noexcept {
  const ssize_t rc = fi_cq_read(handle_.get(), entries.data(), entries.size());
  if (rc == -FI_EAGAIN) {
    return 0;
  }
  return static_cast<long>(rc);
}

bool CompletionQueue::read_error(fi_cq_err_entry& entry) noexcept {
  entry = fi_cq_err_entry{};
  return fi_cq_readerr(handle_.get(), &entry, 0) == 1;
}

std::string CompletionQueue::error_text(const fi_cq_err_entry& entry) const {
  const char* text = fi_cq_strerror(handle_.get(), entry.prov_errno, entry.err_data, nullptr, 0);
  return text == nullptr ? std::string(fi_strerror(entry.err)) : std::string(text);
}

long CompletionQueue::sread(std::span<fi_cq_tagged_entry> entries,
                            std::chrono::milliseconds timeout) noexcept {
  const ssize_t rc = fi_cq_sread(handle_.get(), entries.data(), entries.size(), nullptr,
                                 static_cast<int>(timeout.count()));
  if (rc == -FI_EAGAIN || rc == -FI_ETIMEDOUT) {
    return 0;
  }
  return static_cast<long>(rc);
}

}  // namespace railyard::fabric
