#include "railyard/mpi_shim/detail/shim.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <vector>

#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/mpi_bootstrap.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mpi_shim/detail/pending_collectives.h"

namespace railyard::mpi_shim {
namespace {

int delete_comm_entry(MPI_Comm /*comm*/, int /*keyval*/, void* entry, void* /*extra*/) {
  Shim::instance().forget(entry);
  return MPI_SUCCESS;
}

// Open MPI 4.1 deletes MPI_COMM_SELF's attributes first thing in
// MPI_Finalize, while MPI still works (MPI-3.1 section 8.7.1 asks for it);
// MPI_COMM_WORLD's go later, too late for the world's leaving round. The
// path is the same whichever language called MPI_Finalize.
int delete_self(MPI_Comm /*comm*/, int /*keyval*/, void* /*value*/, void* /*extra*/) {
  Shim::instance().stop();
  return MPI_SUCCESS;
}

// "main (./app)" for a return address, or the address alone.
std::string describe_site(const void* site) {
  Dl_info info{};
  if (site != nullptr && dladdr(site, &info) != 0) {
    const char* file = info.dli_fname != nullptr ? info.dli_fname : "?";
    if (info.dli_sname != nullptr) {
      return fmt::format("{} ({})", info.dli_sname, file);
    }
    return fmt::format("{}+{:#x}", file,
                       reinterpret_cast<std::uintptr_t>(site) -  // NOLINT: an address as a number
                           reinterpret_cast<std::uintptr_t>(info.dli_fbase));  // NOLINT
  }
  return fmt::format("{}", site);
}

}  // namespace

Shim& Shim::instance() {
  // The logger is made first, so it is destroyed after the shim (whose
  // destructor may still log).
  (void)log::level();
  static Shim shim;
  return shim;
}

int Shim::progress_turn() noexcept {
  Shim& shim = instance();
  if (shim.world_) {
    shim.world_->progress_handed_over();
  }
  return PendingCollectives::progress_turn();
}

Shim::~Shim() {
  progress_hook_.reset();
  if (world_collectives_) {
    world_collectives_->detach();
  }
  {
    const std::scoped_lock lock(mutex_);
    entries_.clear();
  }
  world_entry_ = {};
  world_.reset();
}

int Shim::start() noexcept {
  codes_ = ErrorCodes::registered();
  comm::CommunicatorOptions communicator_options;
  std::chrono::milliseconds timeout{};
  try {
    log::check_environment();
    options_ = ShimOptions::from_environment();
    communicator_options = comm::CommunicatorOptions::from_environment();
    timeout = bootstrap::BootstrapOptions::from_environment().timeout;
  } catch (const std::exception& error) {
    log::error("MPI_Init: {}", error.what());
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
    return MPI_ERR_ARG;
  }
  try {
    comm_keyval_.emplace(MPI_COMM_NULL_COPY_FN, &delete_comm_entry);
    self_keyval_.emplace(MPI_COMM_NULL_COPY_FN, &delete_self);
    check_mpi(PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval_->get(), nullptr), "MPI_Comm_set_attr");
  } catch (const std::exception& error) {
    log::error("MPI_Init: the MPI shim cannot start: {}", error.what());
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, codes_.other);
    return codes_.other;
  }
  started_ = true;
  bool any = false;
  for (const MpiCollective collective : kAllMpiCollectives) {
    any = any || options_.takes(collective);
  }
  if (any) {
    // Ranks that route a call apart would meet in different collectives:
    // the world refuses to form unless every rank routes alike.
    communicator_options.caller_job_settings = {
        {"RAILYARD_MPI_COLLECTIVES", options_.enabled_list()},
        {"RAILYARD_MPI_MIN_BYTES", options_.carry.overrides_text()}};
    build_world(communicator_options, timeout);
    if (!refused_.empty()) {
      log::error("MPI_Init: {}", refused_);
      PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
      return MPI_ERR_ARG;
    }
  } else {
    world_entry_.declined = "RAILYARD_MPI_COLLECTIVES=none";
  }
  say_started();
  return MPI_SUCCESS;
}

void Shim::build_world(const comm::CommunicatorOptions& options,
                       std::chrono::milliseconds timeout) {
  try {
    world_collectives_ = std::make_shared<WorldCollectives>();
  } catch (const std::exception& error) {
    world_entry_.declined = fmt::format("railyard is off: {}", error.what());
    log::warn("MPI shim: every collective goes to MPI: {}", error.what());
    return;
  }
  try {
    world_ = comm::Communicator::world(
        options,
        [this](std::span<const std::byte> card) {
          return std::make_unique<bootstrap::MpiBootstrap>(bootstrap_view(world_collectives_),
                                                           card);
        },
        timeout);
    // One more round: every rank has its part, or none keeps one.
    (void)world_collectives_->allgather({});
    world_entry_.communicator = world_;
    progress_hook_.emplace(&Shim::progress_turn);
  } catch (const ConfigError& error) {
    // A bad or disagreeing setting fails MPI_Init, as a bad variable of the
    // shim's own does: going on over MPI would hide the mistake.
    world_.reset();
    world_collectives_->fail_rounds();
    world_entry_.declined = fmt::format("railyard is off: {}", error.what());
    refused_ = error.what();
  } catch (const std::exception& error) {
    // The world's leaving round, then rounds until every rank has failed:
    // they meet the rounds of ranks still building, which then fail too.
    world_.reset();
    world_collectives_->fail_rounds();
    world_entry_.declined = fmt::format("railyard is off: {}", error.what());
    log::warn(
        "MPI shim: rank {}: railyard could not build its world, so every collective goes "
        "to MPI: {}",
        world_collectives_->rank(), error.what());
  }
}

void Shim::say_started() const {
  if (options_.verbose < 1) {
    return;
  }
  int rank = 0;
  int size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!world_) {
    log::emit(log::Level::kInfo,
              fmt::format("MPI shim: rank {} of {}: off, every collective goes to MPI ({})", rank,
                          size, world_entry_.declined));
    return;
  }
  std::vector<std::string> rails;
  for (const auto& rail : world_->counters().rails) {
    if (!rail.host_only) {
      rails.push_back(rail.name);
    }
  }
  int shared = 0;
  for (int other = 0; other < world_->size(); ++other) {
    shared += static_cast<int>(other != rank && world_->shares_memory_with(other));
  }
  const Layout layout = layout_of(world_->host_count(), world_->ranks_per_host());
  std::vector<std::string> carried;
  std::vector<std::string_view> kept;
  for (const MpiCollective collective : kAllMpiCollectives) {
    if (options_.takes(collective) && options_.carry.carries_some(collective, layout)) {
      carried.push_back(
          fmt::format("{} {}", to_string(collective), options_.carry.describe(collective, layout)));
    } else {
      kept.push_back(to_string(collective));
    }
  }
  log::emit(
      log::Level::kInfo,
      fmt::format(
          "MPI shim: rank {} of {}: railyard carries {} on MPI_COMM_WORLD ({} "
          "host(s), {}) and on the communicators made from it as their own layout "
          "says; MPI keeps {}; over {} rail(s) ({}); {} rank(s) over shared memory",
          rank, size,
          carried.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(carried, ", ")),
          world_->host_count(), to_string(layout),
          kept.empty() ? std::string("nothing else") : fmt::format("{}", fmt::join(kept, ", ")),
          rails.size(), fmt::join(rails, ", "), shared));
}

void Shim::say_totals() const {
  if (options_.verbose < 1) {
    return;
  }
  std::vector<std::string> carried;
  std::vector<std::string> handed_back;
  for (const MpiCollective collective : kAllMpiCollectives) {
    const auto index = static_cast<std::size_t>(collective);
    if (const std::uint64_t n = carried_[index].load()) {
      const std::uint64_t nonblocking = nonblocking_[index].load();
      carried.push_back(nonblocking == 0 ? fmt::format("{} {}", to_string(collective), n)
                                         : fmt::format("{} {} ({} non-blocking)",
                                                       to_string(collective), n, nonblocking));
    }
    if (const std::uint64_t n = handed_back_[index].load()) {
      handed_back.push_back(fmt::format("{} {}", to_string(collective), n));
    }
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  log::emit(
      log::Level::kInfo,
      fmt::format("MPI shim: rank {}: railyard carried {}; MPI carried {}", rank,
                  carried.empty() ? "none" : fmt::format("{}", fmt::join(carried, ", ")),
                  handed_back.empty() ? "none" : fmt::format("{}", fmt::join(handed_back, ", "))));
}

void Shim::stop() noexcept {
  say_totals();
  progress_hook_.reset();
  PendingCollectives::instance().abandon_all();
  std::map<const void*, std::unique_ptr<CommEntry>> entries;
  {
    const std::scoped_lock lock(mutex_);
    entries.swap(entries_);
  }
  // The communicators of MPI communicators the program never freed, then
  // the world, whose last handle goes here: it leaves in one round with
  // the other ranks, on the shim's own communicator.
  entries.clear();
  world_entry_ = {};
  world_.reset();
  world_collectives_.reset();
  comm_keyval_.reset();
  self_keyval_.reset();
  started_ = false;
}

void Shim::forget(const void* entry) noexcept {
  std::unique_ptr<CommEntry> gone;
  const std::scoped_lock lock(mutex_);
  const auto found = entries_.find(entry);
  if (found != entries_.end()) {
    gone = std::move(found->second);
    entries_.erase(found);
  }
}

void Shim::report_declined(const char* call, const void* call_site, std::string_view reason) {
  if (options_.verbose < 2) {
    return;
  }
  {
    const std::scoped_lock lock(mutex_);
    if (!reported_.emplace(call_site, fmt::format("{}: {}", call, reason)).second) {
      return;
    }
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  log::emit(log::Level::kInfo, fmt::format("MPI shim: rank {}: {} called from {} goes to MPI: {}",
                                           rank, call, describe_site(call_site), reason));
}

}  // namespace railyard::mpi_shim
