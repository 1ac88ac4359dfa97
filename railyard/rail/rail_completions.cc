// A rail's completions: read from its completion queue in batches (errors
// turned into a Status), delivered to their operations, and the waits that
// sleep on the queue.
#include <rdma/fi_errno.h>

#include <poll.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/rail/detail/rail_internals.h"
#include "railyard/rail/rail.h"

namespace railyard::rail {
namespace {

// Marks a rail busy in progress() for the guard's lifetime, so an
// on_complete that calls progress() again returns at once.
class ProgressGuard {
 public:
  explicit ProgressGuard(bool& flag) : flag_(flag) { flag_ = true; }
  ~ProgressGuard() { flag_ = false; }
  ProgressGuard(const ProgressGuard&) = delete;
  ProgressGuard& operator=(const ProgressGuard&) = delete;
  ProgressGuard(ProgressGuard&&) = delete;
  ProgressGuard& operator=(ProgressGuard&&) = delete;

 private:
  bool& flag_;
};

// Operations whose completion the rail's wait descriptor need not announce.
bool is_outbound(OpKind kind) noexcept {
  return kind != OpKind::kRecv && kind != OpKind::kTaggedRecv;
}

}  // namespace

void Rail::drop_stray(std::string_view what) noexcept {
  ++counters_.stray_completions;
  log::warn("rail {}: a second completion of one {} dropped", name_, what);
}

void Rail::mark_in_flight(RailOp& op) noexcept {
  if (!failed_contexts_.empty()) {
    failed_contexts_.erase(&op.context_);  // its next completion is its own
  }
  op.in_flight_ = true;
  if (is_outbound(op.kind_)) {
    ++outbound_in_flight_;
  }
  op.previous_in_flight_ = nullptr;
  op.next_in_flight_ = in_flight_head_;
  if (in_flight_head_ != nullptr) {
    in_flight_head_->previous_in_flight_ = &op;
  }
  in_flight_head_ = &op;
}

void Rail::finish(RailOp& op, const Completion& completion) noexcept {
  if (!op.in_flight_) {
    // Every post marks its op in flight and only this call clears it: a
    // second completion for one post would end it twice, and its owner
    // would count one more piece done than it posted, finish early and
    // free operations still in flight.
    drop_stray(fmt::format("{} that was not in flight", to_string(op.kind_)));
    return;
  }
  if (is_outbound(op.kind_)) {
    --outbound_in_flight_;
  }
  (op.previous_in_flight_ != nullptr ? op.previous_in_flight_->next_in_flight_ : in_flight_head_) =
      op.next_in_flight_;
  if (op.next_in_flight_ != nullptr) {
    op.next_in_flight_->previous_in_flight_ = op.previous_in_flight_;
  }
  op.previous_in_flight_ = nullptr;
  op.next_in_flight_ = nullptr;
  op.in_flight_ = false;
  op.cancel_requested_ = false;
  try {
    if (!completion.status.ok()) {
      log::debug("rail {}: {}", name_, completion.status.to_string());
    }
    op.on_complete(completion);
  } catch (...) {
    // Keep delivering: the completions read with this one exist nowhere
    // else. progress() rethrows once the batch is done.
    keep_escaped();
  }
}

void Rail::keep_escaped() noexcept {
  if (!escaped_) {
    escaped_ = std::current_exception();
  }
}

void Rail::rethrow_escaped() {
  if (escaped_) {
    std::rethrow_exception(std::exchange(escaped_, nullptr));
  }
}

std::size_t Rail::deliver(std::span<const fi_cq_tagged_entry> entries) {
  for (const auto& entry : entries) {
    if (entry.op_context == nullptr) {
      log::warn("rail {}: completion without an operation (flags 0x{:x}) ignored", name_,
                entry.flags);
      continue;
    }
    if (!failed_contexts_.empty() && failed_contexts_.contains(entry.op_context)) {
      drop_stray("operation that had failed, reported again by the provider");
      continue;
    }
    RailOp& op = *static_cast<RailOp::Context*>(entry.op_context)->owner;
    Completion completion;
    completion.kind = op.kind_;
    completion.length = detail::is_receive(op.kind_) ? entry.len : op.posted_length_;
    completion.tag = entry.tag;
    if ((entry.flags & FI_REMOTE_CQ_DATA) != 0) {
      completion.data = entry.data;
      completion.has_data = true;
    }
    switch (op.kind_) {
      case OpKind::kSend:
      case OpKind::kTaggedSend:
        ++counters_.messages_sent;
        counters_.bytes_sent += completion.length;
        break;
      case OpKind::kRecv:
      case OpKind::kTaggedRecv:
        ++counters_.messages_received;
        counters_.bytes_received += completion.length;
        break;
      case OpKind::kWrite:
        ++counters_.writes;
        counters_.bytes_written += completion.length;
        break;
      case OpKind::kRead:
        ++counters_.reads;
        counters_.bytes_read += completion.length;
        break;
    }
    finish(op, completion);
  }
  return entries.size();
}

std::size_t Rail::deliver_error() {
  fi_cq_err_entry entry{};
  if (!cq_.read_error(entry)) {
    return 0;
  }
  ++counters_.errors;
  // An entry the provider flushed while reset() closed the endpoint may
  // point its provider-specific error data into the closed endpoint
  // (tcp;ofi_rxm's does): only the error number is read then.
  const std::string text = resetting_ ? std::string(fi_strerror(entry.err)) : cq_.error_text(entry);
  if (entry.op_context == nullptr) {
    log::error("rail {}: error completion without an operation: {} ({})", name_, text,
               fi_strerror(entry.err));
    return 0;
  }
  // (Its second report, and not its first, is what frees nothing: see
  // failed_contexts_.)
  if (!failed_contexts_.insert(entry.op_context).second) {
    drop_stray(fmt::format("operation that had failed, reported again by the provider ({})",
                           fi_strerror(entry.err)));
    return 1;
  }
  RailOp& op = *static_cast<RailOp::Context*>(entry.op_context)->owner;
  Completion completion;
  completion.kind = op.kind_;
  completion.length = entry.len;
  completion.tag = entry.tag;
  StatusCode code = detail::code_for(entry.err);
  std::string message;
  if (entry.err == FI_ETRUNC || entry.err == FI_ETOOSMALL) {
    // Some providers (tcp;ofi_rxm) report neither the delivered nor the
    // dropped length: state the sizes only when they are known.
    const std::string size = entry.olen != 0
                                 ? fmt::format("{}-byte message", entry.len + entry.olen)
                                 : std::string("message of unreported length");
    message = fmt::format("{} on rail {}: a {} (tag 0x{:x}) does not fit the {}-byte buffer",
                          to_string(op.kind_), name_, size, entry.tag, op.posted_length_);
  } else if (entry.err == FI_ECANCELED && resetting_) {
    completion.status = ended_by_reset(op, *resetting_);
    finish(op, completion);
    return 1;
  } else if (entry.err == FI_ECANCELED && !op.cancel_requested_) {
    // Nobody asked for it: the provider dropped the operation with its
    // connection (net cancels every send queued to a peer whose socket
    // died). The peer is unreachable, not the operation withdrawn. The
    // entry's provider error is whatever errno held then: only its own
    // error number is said.
    message = fmt::format(
        "{} of {} bytes on rail {} was canceled by the provider, which lost its connection to the "
        "peer ({})",
        to_string(op.kind_), op.posted_length_, name_, fi_strerror(entry.err));
    code = StatusCode::kUnreachable;
  } else {
    message = fmt::format("{} of {} bytes on rail {} failed: {} ({})", to_string(op.kind_),
                          op.posted_length_, name_, fi_strerror(entry.err), text);
  }
  completion.status = Status(code, std::move(message), entry.err);
  finish(op, completion);
  return 1;
}

std::size_t Rail::progress() {
  if (in_progress_) {
    return 0;  // called from an on_complete: the outer call keeps going
  }
  if (peerless_ && !has_unannounced_work()) {
    const auto now = std::chrono::steady_clock::now();
    if (now < next_peerless_poll_) {
      ++counters_.peerless_polls_skipped;
      return 0;
    }
    next_peerless_poll_ = now + peerless_gap_;
  }
  const ProgressGuard guard(in_progress_);
  const std::uint64_t received_before = counters_.messages_received;

  std::size_t delivered = 0;
  if (!local_completions_.empty()) {
    auto pending = std::exchange(local_completions_, {});
    for (auto& [op, completion] : pending) {
      finish(*op, completion);
      ++delivered;
    }
  }
  const std::span<fi_cq_tagged_entry> entries(completion_batch_);
  // (No queue: a reset failed to reopen one, and the rail is closed.)
  for (int batch = 0; batch < detail::kMaxBatchesPerProgress && cq_.get() != nullptr; ++batch) {
    const long n = cq_.read(entries);
    if (n == -FI_EAVAIL) {
      delivered += deliver_error();
      continue;
    }
    if (n < 0) {
      log::error("rail {}: fi_cq_read failed: {} ({})", name_, fi_strerror(static_cast<int>(-n)),
                 n);
      break;
    }
    delivered += deliver(std::span(entries.data(), static_cast<std::size_t>(n)));
    if (static_cast<std::size_t>(n) < entries.size()) {
      break;
    }
  }
  drain(tx_backlog_);
  drain(rx_backlog_);
  if (peerless_ && counters_.messages_received != received_before) {
    // A message the owner did not expect here: read the queue every time again.
    peerless_ = false;
    log::info(
        "rail {}: traffic arrived although no peer is reached through it; polled on every "
        "call from now on",
        name_);
  }
  rethrow_escaped();
  return delivered;
}

std::size_t Rail::progress_blocking(std::chrono::milliseconds timeout) {
  if (in_progress_ || cq_.get() == nullptr) {
    return 0;
  }
  const std::span<fi_cq_tagged_entry> entries(completion_batch_);
  const long n = cq_.sread(entries, timeout);
  std::size_t delivered = 0;
  {
    const ProgressGuard guard(in_progress_);
    if (n > 0) {
      delivered += deliver(std::span(entries.data(), static_cast<std::size_t>(n)));
    } else if (n == -FI_EAVAIL) {
      delivered += deliver_error();
    }
  }
  // progress() also rethrows what an on_complete above threw.
  return delivered + progress();
}

bool Rail::ready_to_block() noexcept {
  if (!local_completions_.empty()) {
    return false;
  }
  if (cq_.get() == nullptr) {
    return true;  // closed (a failed reset): nothing will ever come
  }
  std::array<fid*, 1> fids{&cq_.get()->fid};
  if (fi_trywait(resources_->fabric.get(), fids.data(), 1) != 0) {
    return false;
  }
  pollfd descriptor{wait_fd(), POLLIN, 0};
  if (::poll(&descriptor, 1, 0) <= 0) {
    return true;  // quiet: a poll on it sleeps until the next event
  }
  return clear_stale_signal();
}

bool Rail::clear_stale_signal() noexcept {
  // fi_trywait allowed sleeping, yet the descriptor polls readable: either
  // work came in just now, or the provider never cleared an old signal.
  // libfabric 1.17's net provider does the latter: its fi_trywait neither
  // checks nor clears, so after the first completion the descriptor stays
  // readable for good, every "sleep" returns at once, a waiting rank spins,
  // and with more ranks than cores the rank it waits for is starved. The
  // queue's wait set is reset here instead; what still polls readable after
  // that is real work.
  switch (cq_.clear_signal()) {
    case fabric::CompletionQueue::SignalReset::kNoWaitSet:
      return true;  // nothing to reset with: the poll decides
    case fabric::CompletionQueue::SignalReset::kReady:
      return false;
    case fabric::CompletionQueue::SignalReset::kQuiet:
      break;
  }
  pollfd descriptor{wait_fd(), POLLIN, 0};
  return ::poll(&descriptor, 1, 0) <= 0;
}

}  // namespace railyard::rail
