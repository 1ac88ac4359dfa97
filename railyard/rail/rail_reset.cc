// Rail::reset: closing a rail's endpoint and opening it again at the same
// address, which ends every operation the provider held (rail failover).
#include <rdma/fi_errno.h>

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/rail/detail/connection_abort.h"
#include "railyard/rail/rail.h"

namespace railyard::rail {

Status Rail::ended_by_reset(const RailOp& op, std::string_view why) const {
  return {StatusCode::kCanceled,
          fmt::format("{} of {} bytes on rail {} ended: the rail was reset ({})",
                      to_string(op.kind_), op.posted_length_, name_, why),
          FI_ECANCELED};
}

namespace {

// At most this many reads to empty the queue before the endpoint closes
// (each delivers what it found, which may post more).
constexpr int kDrainTurns = 16;

}  // namespace

Status Rail::reset(std::string_view why) {
  if (in_progress_) {
    return {StatusCode::kInvalidArgument,
            fmt::format("reset of rail {} from inside its progress(): reset it after", name_)};
  }
  if (closed_) {
    return *closed_;
  }
  if (limits_.mr_endpoint()) {
    return {StatusCode::kInvalidArgument,
            fmt::format("rail {} cannot be reset: provider {} binds memory registrations to the "
                        "endpoint (FI_MR_ENDPOINT)",
                        name_, limits_.provider)};
  }
  // Reopened at its own address, written over the source address it was
  // opened with: refused before anything is closed when there is none.
  if (info_->src_addr == nullptr || info_->src_addrlen != address_.size()) {
    return {
        StatusCode::kInvalidArgument,
        fmt::format("rail {} cannot be reset: it was opened without a source address of its "
                    "address's {} bytes (it has {} bytes)",
                    name_, address_.size(), info_->src_addr == nullptr ? 0 : info_->src_addrlen)};
  }
  // What the provider finished before the close is delivered as it is, and
  // so is what it finished while closing (issue() defers posts while there
  // is no endpoint). What it flushes as canceled reads as ended by the reset.
  (void)progress();
  // Its connections end now: what their send queues hold never leaves.
  const std::size_t aborted = detail::abort_connections(wait_fd());
  log::info("rail {}: {} connection(s) aborted before the endpoint closes", name_, aborted);
  resetting_ = std::string(why);
  // The queue is read until it is empty before the endpoint closes. Closing
  // `net`'s endpoint with completions still to come from it made the next
  // read of a queue of the domain crash inside fi_cq_read (they likely point
  // into memory the close frees): with the one read above, 1 run in 20 of
  // Failover.ARailResetNotice... after another failover test in the same
  // process; without the connections aborted, every run. Read until empty,
  // 0 in 300.
  for (int turn = 0; turn < kDrainTurns; ++turn) {
    try {
      if (progress() == 0) {
        break;
      }
    } catch (...) {
      resetting_.reset();
      throw;
    }
  }
  endpoint_.close();
  try {
    (void)progress();
  } catch (...) {
    resetting_.reset();
    throw;
  }
  resetting_.reset();
  ++counters_.resets;
  const Status reopened = reopen();
  if (!reopened.ok()) {
    closed_ = Status(
        StatusCode::kUnreachable,
        fmt::format("the rail is closed: resetting it ({}) failed: {}", why, reopened.message()));
    log::error("rail {}: {}", name_, closed_->message());
  }
  // Every operation the old endpoint held ends here; deferred posts were
  // never issued and go to the new one (or fail, if there is none).
  // Those with a completion of their own already on the way excepted.
  std::unordered_set<const RailOp*> spared;
  for (const auto* backlog : {&tx_backlog_, &rx_backlog_}) {
    for (const PendingPost& post : *backlog) {
      spared.insert(post.op);
    }
  }
  for (const auto& pending : local_completions_) {
    spared.insert(pending.first);
  }
  std::vector<RailOp*> ended;
  for (RailOp* op = in_flight_head_; op != nullptr; op = op->next_in_flight_) {
    if (!spared.contains(op)) {
      ended.push_back(op);
    }
  }
  for (RailOp* op : ended) {
    Completion completion;
    completion.kind = op->kind_;
    completion.status = ended_by_reset(*op, why);
    local_completions_.emplace_back(op, std::move(completion));
  }
  if (closed_) {
    for (auto* backlog : {&tx_backlog_, &rx_backlog_}) {
      for (const PendingPost& post : *backlog) {
        if (post.op != nullptr) {
          complete_unissued(post, *closed_);
        }
      }
      backlog->clear();
    }
    return *closed_;
  }
  log::info("rail {}: reset ({}): {} operations ended, {} deferred posts kept", name_, why,
            ended.size(), tx_backlog_.size() + rx_backlog_.size());
  return {};
}

}  // namespace railyard::rail
