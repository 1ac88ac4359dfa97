#include "railyard/rail/rail.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <poll.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rail/detail/remote_key.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/provider_defaults.h"
#include "railyard/rail/provider_selection.h"

namespace railyard::rail {

// The fabric and domain outlive the Rail while registrations still use them.
struct Rail::Resources {
  explicit Resources(fi_info& info) : fabric(info), domain(fabric, info) {}
  fabric::Fabric fabric;
  fabric::Domain domain;
};

namespace {

constexpr std::size_t kCompletionBatch = 32;
// Bounds one progress() call so a busy rail cannot starve its neighbours.
constexpr int kMaxBatchesPerProgress = 8;

RailOptions resolve_options(RailOptions options) {
  log::check_environment();
  if (options.provider.empty()) {
    options.provider = default_provider();
  }
  return options;
}

std::optional<BindAddress> resolve_address(const RailOptions& options) {
  if (options.address.empty()) {
    return std::nullopt;
  }
  return resolve_bind_address("rail address", options.address);
}

fabric::FabricInfo checked_info(const RailOptions& options,
                                const std::optional<BindAddress>& address) {
  auto info = select_rail_info(options.provider, address ? &*address : nullptr);
  require_rail_limits(read_limits(*info.get()));
  return info;
}

std::size_t queue_size(const RailOptions& options, const RailLimits& limits) {
  if (options.completion_queue_size != 0) {
    return options.completion_queue_size;
  }
  return limits.tx_queue_size + limits.rx_queue_size;
}

StatusCode code_for(int fi_errno) noexcept {
  switch (fi_errno) {
    case FI_ETRUNC:
    case FI_ETOOSMALL:
      return StatusCode::kTruncated;
    case FI_ECANCELED:
      return StatusCode::kCanceled;
    case FI_ETIMEDOUT:
      return StatusCode::kTimedOut;
    case FI_EINVAL:
    case FI_EMSGSIZE:
      return StatusCode::kInvalidArgument;
    case FI_ECONNREFUSED:
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case FI_EHOSTUNREACH:
    case FI_ENOTCONN:
    case FI_EADDRNOTAVAIL:
    case FI_ESHUTDOWN:
      return StatusCode::kUnreachable;
    default:
      return StatusCode::kIoError;
  }
}

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

bool is_receive(OpKind kind) noexcept {
  return kind == OpKind::kRecv || kind == OpKind::kTaggedRecv;
}

}  // namespace

Rail::Rail() : Rail(RailOptions::from_environment()) {}

Rail::Rail(const RailOptions& options)
    : options_(resolve_options(options)),
      bind_address_(resolve_address(options_)),
      info_(checked_info(options_, bind_address_)),
      limits_(read_limits(*info_.get())),
      resources_(std::make_shared<Resources>(*info_.get())),
      av_(resources_->domain, options_.expected_peers),
      cq_(resources_->domain, queue_size(options_, limits_), &resources_->fabric),
      endpoint_(resources_->domain, *info_.get()),
      completion_batch_(kCompletionBatch) {
  log_provider_defaults();
  endpoint_.bind(av_);
  endpoint_.bind(cq_);
  endpoint_.enable();
  address_ = endpoint_.name();
  name_ = av_.to_string(address_);
  static constexpr std::array<const char*, 3> kWaitNames{"fd", "provider", "none (yield)"};
  log::info("rail {}: {}{}; wait object {}", name_, limits_.summary(),
            bind_address_ ? fmt::format(", bound from '{}' on {}", bind_address_->spec,
                                        bind_address_->interface)
                          : std::string(", on the provider's default interface"),
            kWaitNames.at(static_cast<std::size_t>(cq_.wait_kind())));
}

Rail::~Rail() {
  // Operations still in flight belong to their owners; closing the endpoint
  // discards them. Say so, because an owner waiting on one would wait forever.
  const std::size_t deferred = tx_backlog_.size() + rx_backlog_.size();
  if (deferred != 0) {
    log::debug("rail {}: closing with {} deferred posts never issued", name_, deferred);
  }
}

Status Rail::reopen() {
  // A new completion queue too: tcp;ofi_rxm leaves the closed endpoint's
  // inner queues in the old one's wait set, and the next fi_trywait on it
  // reads freed memory. Everything the old one held has been delivered.
  cq_.close();
  failed_contexts_.clear();
  // At the address the old endpoint had, not the one it was asked for
  // (port 0 in it means any), written over the one asked for.
  // (reset() checked that the sizes match.)
  fabric::FabricInfo info = fabric::FabricInfo::copy_of(*info_.get());
  std::memcpy(info->src_addr, address_.data(), address_.size());
  try {
    cq_ = fabric::CompletionQueue(resources_->domain, queue_size(options_, limits_),
                                  &resources_->fabric);
    fabric::Endpoint endpoint(resources_->domain, *info.get());
    endpoint.bind(av_);
    endpoint.bind(cq_);
    endpoint.enable();
    if (endpoint.name() != address_) {
      return {StatusCode::kIoError,
              fmt::format("the provider reopened it at {}, not at its address",
                          av_.to_string(endpoint.name()))};
    }
    endpoint_ = std::move(endpoint);
  } catch (const Error& e) {
    return {StatusCode::kIoError, e.what()};
  }
  return {};
}

RailPeer Rail::insert_peer(std::span<const std::byte> address) {
  if (limits_.address_format == "FI_ADDR_STR") {
    // Strings ("fi_shm://4242:0:1"): any length, but terminated, since the
    // provider reads up to the NUL.
    constexpr std::size_t kMaxStringAddress = 256;
    if (address.size() < 2 || address.size() > kMaxStringAddress ||
        address.back() != std::byte{0} ||
        std::find(address.begin(), address.end() - 1, std::byte{0}) != address.end() - 1) {
      throw Error(
          fmt::format("peer address ({} bytes) is not a valid address for rail {} ({}): expected a "
                      "NUL-terminated FI_ADDR_STR string of 2 to {} bytes",
                      address.size(), name_, limits_.provider, kMaxStringAddress));
    }
    return RailPeer{av_.insert(address)};
  }
  if (limits_.address_length != 0 && address.size() != limits_.address_length) {
    throw Error(fmt::format("peer address is {} bytes, but rail {} ({}) uses {}-byte {} addresses",
                            address.size(), name_, limits_.provider, limits_.address_length,
                            limits_.address_format));
  }
  return RailPeer{av_.insert(address)};
}

void Rail::remove_peer(RailPeer peer) { av_.remove(peer.address); }

LocalRegion Rail::register_memory(void* base, std::size_t length) {
  if (base == nullptr || length == 0) {
    throw Error(fmt::format("rail {}: cannot register an empty region ({} bytes at {})", name_,
                            length, base));
  }
  constexpr std::uint64_t kAccess =
      FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  LocalRegion region;
  region.domain_keepalive_ = resources_;
  region.registration_ =
      fabric::MemoryRegion(resources_->domain, base, length, kAccess, next_requested_key_++);
  if (limits_.mr_endpoint()) {
    region.registration_.bind_and_enable(endpoint_);
  }
  region.base_ = base;
  region.length_ = length;
  region.descriptor_ = region.registration_.descriptor();

  RemoteKey key;
  key.length = length;
  if (limits_.mr_raw()) {
    key.raw = true;
    key.key = region.registration_.raw_key(key.base_address);
  } else {
    key.base_address = limits_.mr_virt_addr() ? reinterpret_cast<std::uint64_t>(base) : 0;
    ByteWriter(key.key).u64(region.registration_.key());
  }
  region.remote_key_ = encode_remote_key(key);
  return region;
}

RemoteRegion Rail::import_region(std::span<const std::byte> remote_key) {
  RemoteKey key = decode_remote_key(remote_key);
  if (key.raw != limits_.mr_raw()) {
    throw Error(fmt::format(
        "remote memory key is {} but rail {} ({}) uses {} keys: the peer runs another provider",
        key.raw ? "raw" : "a plain 64-bit key", name_, limits_.provider,
        limits_.mr_raw() ? "raw" : "plain 64-bit"));
  }
  RemoteRegion region;
  region.domain_keepalive_ = resources_;
  region.base_address_ = key.base_address;
  region.length_ = key.length;
  if (key.raw) {
    region.mapped_ = fabric::MappedKey(resources_->domain, key.base_address, std::move(key.key));
    region.key_ = region.mapped_.key();
  } else {
    region.key_ = ByteReader(key.key).u64();  // decode_remote_key checked it is 8 bytes
  }
  return region;
}

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
  const bool receive = is_receive(post.kind);
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
      return {code_for(err),
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
    fail_deferred(done, Status(code_for(err), message, err));
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
    return {code_for(err), fmt::format("fi_cancel on rail {} failed: {}", name_, fi_strerror(err)),
            err};
  }
  return {};
}

namespace {

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
    completion.length = is_receive(op.kind_) ? entry.len : op.posted_length_;
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
  StatusCode code = code_for(entry.err);
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
    // died). The peer is unreachable, not the operation withdrawn.
    message = fmt::format(
        "{} of {} bytes on rail {} was canceled by the provider, which lost its connection to the "
        "peer ({})",
        to_string(op.kind_), op.posted_length_, name_, text);
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
  for (int batch = 0; batch < kMaxBatchesPerProgress && cq_.get() != nullptr; ++batch) {
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

void Rail::set_peerless(bool peerless, std::chrono::microseconds gap) noexcept {
  peerless_ = peerless;
  peerless_gap_ = gap;
  next_peerless_poll_ = {};
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

bool Rail::wait(const Request& request, std::chrono::milliseconds timeout) {
  std::array<Rail*, 1> rails{this};
  return progress_until(
      rails, [&] { return request.done(); }, timeout, options_.wait);
}

}  // namespace railyard::rail
