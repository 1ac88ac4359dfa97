// Posting on a rail: every post checked, then issued, or kept in order
// behind the posts the provider refused for now (FI_EAGAIN) and retried by
// progress() until the post timeout.
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/rail/detail/rail_internals.h"
#include "railyard/rail/rail.h"

namespace railyard::rail {
Status Rail::post(const char* what, PendingPost post) {
  if (closed_) {
    return {closed_->code(), fmt::format("{} on rail {}: {}", what, name_, closed_->message())};
  }
  if (post.buffer == nullptr && post.length != 0) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{} on rail {}: {} bytes at a null address", what, name_, post.length)};
  }
  if (post.inject && post.length > limits_.inject_size) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{} of {} bytes on rail {}: provider {} injects at most {} bytes", what,
                        post.length, name_, limits_.provider, limits_.inject_size)};
  }
  // Injects copy their bytes at once and need no registration.
  if (!post.inject && limits_.mr_local() && post.descriptor == nullptr && post.length != 0) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{} on rail {}: provider {} needs registered memory (FI_MR_LOCAL); pass "
                        "a buffer from a LocalRegion",
                        what, name_, limits_.provider)};
  }
  const bool receive = detail::is_receive(post.kind);
  return submit(std::move(post), receive ? rx_backlog_ : tx_backlog_);
}

Status Rail::post_send(RailOp& op, RailPeer peer, ConstBuffer source) {
  // libfabric's send calls take non-const buffers; they do not write them.
  return post("send", {.kind = OpKind::kSend,
                       .op = &op,
                       .peer = peer.address,
                       .buffer = const_cast<void*>(source.data),
                       .length = source.size,
                       .descriptor = source.descriptor});
}

Status Rail::post_recv(RailOp& op, MutableBuffer destination) {
  return post("receive", {.kind = OpKind::kRecv,
                          .op = &op,
                          .buffer = destination.data,
                          .length = destination.size,
                          .descriptor = destination.descriptor});
}

Status Rail::post_tagged_send(RailOp& op, RailPeer peer, ConstBuffer source, std::uint64_t tag) {
  return post("tagged send", {.kind = OpKind::kTaggedSend,
                              .op = &op,
                              .peer = peer.address,
                              .buffer = const_cast<void*>(source.data),
                              .length = source.size,
                              .descriptor = source.descriptor,
                              .tag = tag});
}

Status Rail::post_tagged_recv(RailOp& op, MutableBuffer destination, std::uint64_t tag,
                              std::uint64_t ignore) {
  return post("tagged receive", {.kind = OpKind::kTaggedRecv,
                                 .op = &op,
                                 .buffer = destination.data,
                                 .length = destination.size,
                                 .descriptor = destination.descriptor,
                                 .tag = tag,
                                 .ignore = ignore});
}

Status Rail::inject(RailPeer peer, ConstBuffer source) {
  return post("inject", {.kind = OpKind::kSend,
                         .peer = peer.address,
                         .buffer = const_cast<void*>(source.data),
                         .length = source.size,
                         .inject = true});
}

Status Rail::tagged_inject(RailPeer peer, ConstBuffer source, std::uint64_t tag) {
  return post("tagged inject", {.kind = OpKind::kTaggedSend,
                                .peer = peer.address,
                                .buffer = const_cast<void*>(source.data),
                                .length = source.size,
                                .tag = tag,
                                .inject = true});
}

Status Rail::check_remote(const char* what, std::size_t size, const RemoteRegion& region,
                          std::uint64_t offset) const {
  if (offset > region.length() || size > region.length() - offset) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{} of {} bytes at offset {} on rail {} exceeds the {}-byte remote region",
                        what, size, offset, name_, region.length())};
  }
  return {};
}

Status Rail::post_write(RailOp& op, RailPeer peer, ConstBuffer source, const RemoteRegion& target,
                        std::uint64_t offset, bool confirm_delivery) {
  if (auto status = check_remote("RMA write", source.size, target, offset); !status.ok()) {
    return status;
  }
  return post("RMA write", {.kind = OpKind::kWrite,
                            .op = &op,
                            .peer = peer.address,
                            .buffer = const_cast<void*>(source.data),
                            .length = source.size,
                            .descriptor = source.descriptor,
                            .remote_address = target.address(offset),
                            .remote_key = target.key(),
                            .confirm_delivery = confirm_delivery});
}

Status Rail::post_read(RailOp& op, RailPeer peer, MutableBuffer destination,
                       const RemoteRegion& source, std::uint64_t offset) {
  if (auto status = check_remote("RMA read", destination.size, source, offset); !status.ok()) {
    return status;
  }
  return post("RMA read", {.kind = OpKind::kRead,
                           .op = &op,
                           .peer = peer.address,
                           .buffer = destination.data,
                           .length = destination.size,
                           .descriptor = destination.descriptor,
                           .remote_address = source.address(offset),
                           .remote_key = source.key()});
}

Status Rail::submit(PendingPost post, std::deque<PendingPost>& backlog) {
  if (post.op != nullptr) {
    if (post.op->in_flight_) {
      return {StatusCode::kInvalidArgument,
              fmt::format("{} on rail {}: the operation is already in flight", to_string(post.kind),
                          name_)};
    }
    post.op->kind_ = post.kind;
    post.op->posted_length_ = post.length;
  }
  // Behind a deferred post, a new one waits its turn: posts on one queue are
  // issued in the order they were made.
  if (backlog.empty()) {
    const long rc = issue(post);
    if (rc == 0) {
      if (post.op != nullptr) {
        mark_in_flight(*post.op);
      } else {
        ++counters_.messages_sent;
        counters_.bytes_sent += post.length;
      }
      return {};
    }
    if (rc != -FI_EAGAIN) {
      const int err = static_cast<int>(-rc);
      return {detail::code_for(err),
              fmt::format("{} of {} bytes on rail {} refused: {}", to_string(post.kind),
                          post.length, name_, fi_strerror(err)),
              err};
    }
  }
  if (post.inject) {
    const auto* bytes = static_cast<const std::byte*>(post.buffer);
    post.inject_copy.assign(bytes, bytes + post.length);
  }
  if (post.op != nullptr) {
    mark_in_flight(*post.op);
  }
  ++counters_.deferred_posts;
  post.deferred_at = std::chrono::steady_clock::now();
  backlog.push_back(std::move(post));
  return {};
}

long Rail::issue(const PendingPost& post) noexcept {
  fid_ep* ep = endpoint_.get();
  if (ep == nullptr) {
    return -FI_EAGAIN;  // between the close and the reopen of a reset
  }
  void* context = post.op != nullptr ? &post.op->context_ : nullptr;
  void* buffer =
      post.inject_copy.empty() ? post.buffer : const_cast<std::byte*>(post.inject_copy.data());
  if (post.inject) {
    return post.kind == OpKind::kTaggedSend
               ? fi_tinject(ep, buffer, post.length, post.peer, post.tag)
               : fi_inject(ep, buffer, post.length, post.peer);
  }
  switch (post.kind) {
    case OpKind::kSend:
      return fi_send(ep, buffer, post.length, post.descriptor, post.peer, context);
    case OpKind::kRecv:
      return fi_recv(ep, buffer, post.length, post.descriptor, FI_ADDR_UNSPEC, context);
    case OpKind::kTaggedSend:
      return fi_tsend(ep, buffer, post.length, post.descriptor, post.peer, post.tag, context);
    case OpKind::kTaggedRecv:
      return fi_trecv(ep, buffer, post.length, post.descriptor, FI_ADDR_UNSPEC, post.tag,
                      post.ignore, context);
    case OpKind::kWrite:
      // Checked here, not at the post: a write deferred before the provider
      // refused the flag goes without it too.
      if (post.confirm_delivery && confirms_writes_) {
        return write_confirmed(post, buffer, context);
      }
      return fi_write(ep, buffer, post.length, post.descriptor, post.peer, post.remote_address,
                      post.remote_key, context);
    case OpKind::kRead:
      return fi_read(ep, buffer, post.length, post.descriptor, post.peer, post.remote_address,
                     post.remote_key, context);
  }
  return -FI_EINVAL;
}

long Rail::write_confirmed(const PendingPost& post, void* buffer, void* context) noexcept {
  fid_ep* ep = endpoint_.get();
  iovec local{buffer, post.length};
  void* descriptor = post.descriptor;
  fi_rma_iov remote{post.remote_address, post.length, post.remote_key};
  const fi_msg_rma message{.msg_iov = &local,
                           .desc = &descriptor,
                           .iov_count = 1,
                           .addr = post.peer,
                           .rma_iov = &remote,
                           .rma_iov_count = 1,
                           .context = context,
                           .data = 0};
  const long rc = fi_writemsg(ep, &message, FI_COMPLETION | FI_DELIVERY_COMPLETE);
  if (rc != -FI_EBADFLAGS) {
    return rc;
  }
  // Said once, at info level: a failover then cannot vouch for writes that
  // completed over a path that fails (docs/architecture.md, "Rail failover").
  confirms_writes_ = false;
  log::info(
      "rail {}: provider {} refuses FI_DELIVERY_COMPLETE on RMA writes; writes complete once "
      "sent",
      name_, limits_.provider);
  return fi_write(ep, buffer, post.length, post.descriptor, post.peer, post.remote_address,
                  post.remote_key, context);
}

void Rail::drain(std::deque<PendingPost>& backlog) {
  while (!backlog.empty()) {
    PendingPost& post = backlog.front();
    const long rc = issue(post);
    if (rc == -FI_EAGAIN) {
      const auto waited = std::chrono::steady_clock::now() - post.deferred_at;
      if (waited < options_.post_timeout) {
        return;
      }
      // Refused for far longer than a full queue or a connection takes: the
      // peer is gone (tcp;ofi_rxm refuses posts to a dead peer forever). The
      // post fails so the rest of the queue can go, and its owner learns why.
      Status gone(StatusCode::kUnreachable,
                  fmt::format("{} of {} bytes on rail {}: the provider kept refusing it "
                              "(FI_EAGAIN) for {:.1f} s; the peer is probably gone",
                              to_string(post.kind), post.length, name_,
                              std::chrono::duration<double>(options_.post_timeout).count()),
                  FI_EAGAIN);
      PendingPost stuck = std::move(post);
      backlog.pop_front();
      fail_deferred(stuck, std::move(gone));
      continue;
    }
    PendingPost done = std::move(post);
    backlog.pop_front();
    if (rc == 0) {
      if (done.op == nullptr) {
        ++counters_.messages_sent;
        counters_.bytes_sent += done.length;
      }
      continue;
    }
    const int err = static_cast<int>(-rc);
    const std::string message =
        fmt::format("deferred {} of {} bytes on rail {} failed: {}", to_string(done.kind),
                    done.length, name_, fi_strerror(err));
    fail_deferred(done, Status(detail::code_for(err), message, err));
  }
}

void Rail::fail_deferred(const PendingPost& post, Status status) {
  ++counters_.errors;
  if (post.op == nullptr) {
    // An inject: its caller was told it succeeded, so only the handler can
    // make the loss known (the multi-rail layer fails the peer).
    if (post_failure_) {
      try {
        post_failure_(RailPeer{post.peer}, status);
      } catch (...) {
        keep_escaped();
      }
    } else {
      log::error("rail {}: {}; nothing was told of the loss (no post-failure handler)", name_,
                 status.message());
    }
    return;
  }
  Completion completion;
  completion.kind = post.kind;
  completion.status = std::move(status);
  finish(*post.op, completion);
}

void Rail::complete_unissued(const PendingPost& post, Status status) {
  Completion completion;
  completion.kind = post.kind;
  completion.status = std::move(status);
  local_completions_.emplace_back(post.op, std::move(completion));
}

std::size_t Rail::fail_deferred_posts_to(RailPeer peer, const Status& status) {
  std::size_t failed = 0;
  for (auto it = tx_backlog_.begin(); it != tx_backlog_.end();) {
    if (it->peer != peer.address) {
      ++it;
      continue;
    }
    if (it->op != nullptr) {
      complete_unissued(*it, status);
    }
    ++counters_.errors;
    ++failed;
    it = tx_backlog_.erase(it);
  }
  return failed;
}

Status Rail::cancel(RailOp& op) {
  if (!op.in_flight_) {
    return {StatusCode::kInvalidArgument,
            fmt::format("cancel on rail {}: the operation is not in flight", name_)};
  }
  for (auto* backlog : {&tx_backlog_, &rx_backlog_}) {
    const auto it = std::find_if(backlog->begin(), backlog->end(),
                                 [&](const PendingPost& post) { return post.op == &op; });
    if (it != backlog->end()) {
      complete_unissued(*it, Status(StatusCode::kCanceled,
                                    fmt::format("{} on rail {} canceled before it was issued",
                                                to_string(it->kind), name_),
                                    FI_ECANCELED));
      backlog->erase(it);
      return {};
    }
  }
  if (closed_) {
    return {closed_->code(), fmt::format("cancel on rail {}: {}", name_, closed_->message())};
  }
  op.cancel_requested_ = true;
  const long rc = fi_cancel(&endpoint_.get()->fid, &op.context_);
  if (rc != 0) {
    const int err = static_cast<int>(-rc);
    return {detail::code_for(err),
            fmt::format("fi_cancel on rail {} failed: {}", name_, fi_strerror(err)), err};
  }
  return {};
}

}  // namespace railyard::rail
