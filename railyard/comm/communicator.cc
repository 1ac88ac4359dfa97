#include "railyard/comm/communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "railyard/bootstrap/make_bootstrap.h"
#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/rank_card.h"
#include "railyard/comm/detail/rank_rails.h"
#include "railyard/comm/detail/tag_layout.h"
#include "railyard/comm/detail/world.h"
#include "railyard/comm/host_identity.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/common/launch_identity.h"
#include "railyard/topology/process_binding.h"

namespace railyard::comm {
namespace {

// The launcher's local rank for this process, when its variables give one.
// Variables that contradict each other are reported by the bootstrap that
// reads them; here they only mean no hint.
std::optional<unsigned> launcher_local_rank() {
  try {
    return launch_identity_from_environment().local_rank;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// This rank's card: its host, the CPUs it may run on, the settings the
// ranks must share and, from one rank per host, the host's machine layout.
bootstrap::Blob my_rank_card(const CommunicatorOptions& options) {
  detail::RankCard card;
  card.host = options.host_id.empty() ? host_identity() : options.host_id;
  card.cpus = topology::process_binding();
  card.settings = detail::job_settings(options);
  if (detail::reads_host_machine_for_card(launcher_local_rank())) {
    try {
      card.machine = detail::read_host_machine();
    } catch (const Error& error) {
      // Every rank of the host then reads it for itself, and reports there
      // what fails.
      log::debug("the rank card goes without this host's machine layout: {}", error.what());
    }
  }
  return encode(card);
}

}  // namespace

Communicator Communicator::world() {
  const CommunicatorOptions options = CommunicatorOptions::from_environment();
  const bootstrap::BootstrapOptions bootstrap = bootstrap::BootstrapOptions::from_environment();
  const LaunchIdentity identity = launch_identity_from_environment();
  return world(
      options,
      [&](std::span<const std::byte> card) {
        return bootstrap::make_bootstrap(card, bootstrap, identity);
      },
      bootstrap.timeout);
}

Communicator Communicator::world(const CommunicatorOptions& options, const Join& join,
                                 std::chrono::milliseconds setup_timeout) {
  detail::StartupSteps steps;
  const bootstrap::Blob card = my_rank_card(options);
  steps.mark("rank card");
  auto bootstrap = join(card);
  steps.mark("bootstrap");
  auto world = std::make_shared<detail::World>(std::move(bootstrap), options, setup_timeout,
                                               std::move(steps));
  auto group = std::make_shared<detail::Group>();
  group->world = std::move(world);
  group->context = 0;
  group->rank = group->world->rank();
  for (int rank = 0; rank < group->world->size(); ++rank) {
    group->members.push_back(rank);
    group->rank_of.push_back(rank);
  }
  return Communicator(std::move(group));
}

Communicator::Communicator(std::shared_ptr<detail::Group> group) : world_(group->world.get()) {
  group->settle();
  group_ = std::move(group);
}

int Communicator::rank() const noexcept { return group_->rank; }
int Communicator::size() const noexcept { return static_cast<int>(group_->members.size()); }
int Communicator::local_rank() const noexcept { return group_->local_rank; }
int Communicator::local_size() const noexcept { return group_->local_size; }
int Communicator::host_count() const noexcept { return group_->hosts.hosts; }
int Communicator::ranks_per_host() const noexcept { return group_->hosts.ranks_per_host; }

int Communicator::host_index(int rank) const {
  check_peer(rank, "host_index", false);
  return world_->host_index(group_->members[static_cast<std::size_t>(rank)]);
}
std::uint32_t Communicator::context() const noexcept { return group_->context; }
const CommunicatorOptions& Communicator::options() const noexcept { return world_->options(); }

int Communicator::world_rank(int rank) const {
  check_peer(rank, "world_rank", false);
  return group_->members[static_cast<std::size_t>(rank)];
}

bool Communicator::shares_memory_with(int rank) const {
  check_peer(rank, "shares_memory_with", false);
  const auto paths = world_->endpoint().paths(peer_of(rank));
  return !paths.empty() && paths.front().same_host;
}

mrail::EndpointCounters Communicator::counters() const { return world_->endpoint().counters(); }

void Communicator::progress_handed_over() const noexcept {
  world_->endpoint().progress_handed_over();
}

void Communicator::wake_waiters() const { world_->endpoint().wake_waiters(); }

namespace {

// The errors of the checks every send and receive makes, out of their way:
// the checks themselves stay small enough to be inlined.
[[noreturn]] [[gnu::cold]] void throw_bad_peer(int rank, const char* what, bool any_allowed,
                                               int size) {
  throw UsageError(fmt::format("{}: rank {} is not a rank of this communicator of {} ranks{}", what,
                               rank, size, any_allowed ? " (nor kAnySource)" : ""));
}

[[noreturn]] [[gnu::cold]] void throw_bad_tag(int tag, const char* what, bool any_allowed) {
  throw UsageError(fmt::format("{}: tag {} is invalid: expected 0 to {}{}", what, tag,
                               Communicator::kMaxTag, any_allowed ? " or kAnyTag" : ""));
}

[[noreturn]] [[gnu::cold]] void throw_null_buffer(std::size_t bytes, const char* what) {
  throw UsageError(fmt::format("{}: a null buffer of {} bytes", what, bytes));
}

}  // namespace

void Communicator::check_peer(int rank, const char* what, bool any_allowed) const {
  if ((rank < 0 || rank >= size()) && !(any_allowed && rank == kAnySource)) {
    throw_bad_peer(rank, what, any_allowed, size());
  }
}

std::uint64_t Communicator::ignore_for(int tag) {
  return tag == kAnyTag ? detail::kUserTagMask : 0;
}

std::uint64_t Communicator::tag_for(int tag, const char* what, bool any_allowed) const {
  if (any_allowed && tag == kAnyTag) {
    return detail::wire_tag(group_->context, false, 0);
  }
  if (tag < 0) {
    throw_bad_tag(tag, what, any_allowed);
  }
  return detail::wire_tag(group_->context, false, static_cast<std::uint64_t>(tag));
}

namespace {

void check_buffer(const void* data, std::size_t bytes, const char* what) {
  if (data == nullptr && bytes != 0) {
    throw_null_buffer(bytes, what);
  }
}

}  // namespace

mrail::PeerId Communicator::peer_of(int rank) const {
  return rank == kAnySource ? mrail::kAnySource
                            : world_->peer(group_->members[static_cast<std::size_t>(rank)]);
}

Request Communicator::start(bool receive, void* data, std::size_t bytes, int peer, int tag,
                            std::uint64_t wire, std::uint64_t ignore, const char* what) const {
  auto operation =
      std::make_unique<detail::Operation>(group_, receive, peer, tag, receive ? bytes : 0);
  detail::post(*operation, data, bytes, wire, ignore, what);
  return Request(std::move(operation));
}

Request Communicator::isend(const void* data, std::size_t bytes, int dest, int tag) const {
  check_peer(dest, "isend", false);
  check_buffer(data, bytes, "isend");
  // The payload is only read; one start() serves both directions.
  return start(false, const_cast<void*>(data), bytes, dest, tag,  // NOLINT(*-const-cast)
               tag_for(tag, "isend", false), 0, "isend to");
}

Request Communicator::irecv(void* data, std::size_t bytes, int source, int tag) const {
  check_peer(source, "irecv", true);
  check_buffer(data, bytes, "irecv");
  return start(true, data, bytes, source, tag, tag_for(tag, "irecv", true), ignore_for(tag),
               "irecv from");
}

// A blocking send or receive lives on its caller's stack for the call: no
// allocation, and no reference to the group (the caller's communicator
// holds it until the call returns), which costs a message through the
// Communicator about as little as one through its endpoint. (A non-owning
// shared_ptr, by the aliasing constructor, since Operation holds one.)
std::shared_ptr<const detail::Group> Communicator::borrowed_group() const noexcept {
  return {std::shared_ptr<const detail::Group>(), group_.get()};
}

void Communicator::send(const void* data, std::size_t bytes, int dest, int tag) const {
  check_peer(dest, "send", false);
  check_buffer(data, bytes, "send");
  detail::Operation operation(borrowed_group(), false, dest, tag, 0);
  // The payload is only read.
  detail::post(operation, const_cast<void*>(data), bytes,  // NOLINT(*-const-cast)
               tag_for(tag, "send", false), 0, "send to");
  detail::await(operation, detail::wait_timeout(operation), "");
  // Nothing of an ok send's status reaches the caller.
  if (!operation.request.status().ok()) {
    Status status;
    detail::complete(operation, status);
  }
}

Status Communicator::recv(void* data, std::size_t bytes, int source, int tag) const {
  check_peer(source, "recv", true);
  check_buffer(data, bytes, "recv");
  detail::Operation operation(borrowed_group(), true, source, tag, bytes);
  detail::post(operation, data, bytes, tag_for(tag, "recv", true), ignore_for(tag), "recv from");
  detail::await(operation, detail::wait_timeout(operation), "");
  Status status;
  detail::complete(operation, status);
  return status;
}

std::optional<Status> Communicator::iprobe(int source, int tag) const {
  check_peer(source, "iprobe", true);
  mrail::ProbeResult found;
  if (!world_->endpoint().iprobe(peer_of(source), tag_for(tag, "iprobe", true), ignore_for(tag),
                                 found)) {
    world_->check_job();
    return std::nullopt;
  }
  Status status;
  status.source = group_->rank_of_world(world_->world_rank_of(found.source));
  status.tag = detail::user_tag(found.tag);
  status.bytes = found.length;
  return status;
}

Status Communicator::probe(int source, int tag) const {
  return probe_until(source, tag, options().timeout);
}

Status Communicator::probe(int source, int tag, std::chrono::milliseconds timeout) const {
  return probe_until(source, tag, timeout);
}

Status Communicator::probe_until(int source, int tag,
                                 std::optional<std::chrono::milliseconds> timeout) const {
  std::optional<Status> found = iprobe(source, tag);
  if (!found && !world_->progress_until(
                    [&] {
                      found = iprobe(source, tag);
                      return found.has_value();
                    },
                    timeout)) {
    throw TimeoutError(fmt::format(
        "probe for a message from {} with {} found none within {} ms",
        source == kAnySource ? "any rank" : fmt::format("rank {}", source),
        tag == kAnyTag ? "any tag" : fmt::format("tag {}", tag), timeout ? timeout->count() : 0));
  }
  return *found;
}

void Communicator::abort(int code, const std::string& reason) const noexcept {
  world_->bootstrap().abort(code, reason);
}

Request Communicator::post_internal_send(const void* data, std::size_t bytes, int dest) const {
  return start(false, const_cast<void*>(data), bytes, dest, 0,  // NOLINT(*-const-cast)
               detail::wire_tag(group_->context, true, detail::kSplitTag), 0, "split: send to");
}

Request Communicator::post_internal_recv(void* data, std::size_t bytes, int source) const {
  return start(true, data, bytes, source, 0,
               detail::wire_tag(group_->context, true, detail::kSplitTag), 0,
               "split: receive from");
}

}  // namespace railyard::comm
