// Which railyard communicator carries a collective on an MPI communicator:
// MPI_COMM_WORLD's is the world; any other intra-communicator of ranks of
// MPI_COMM_WORLD gets one of the same ranks at its first collective the shim
// takes (create_group, its context agreed with an MPI_Allreduce over that
// communicator), kept in an attribute that MPI_Comm_free deletes and
// MPI_Comm_dup does not copy. docs/mpi.md, "Communicators".
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "railyard/common/detail/log.h"
#include "railyard/common/detail/parse.h"
#include "railyard/mpi_shim/detail/shim.h"

namespace railyard::mpi_shim {

const comm::Communicator* Shim::route(MpiCollective which, const char* call, MPI_Comm comm,
                                      const std::variant<std::size_t, Declined>& bytes,
                                      const void* call_site) {
  const auto index = static_cast<std::size_t>(which);
  const comm::Communicator* target = choose(which, call, comm, bytes, call_site);
  (target != nullptr ? carried_ : handed_back_)[index].fetch_add(1, std::memory_order_relaxed);
  return target;
}

const comm::Communicator* Shim::choose(MpiCollective which, const char* call, MPI_Comm comm,
                                       const std::variant<std::size_t, Declined>& bytes,
                                       const void* call_site) {
  if (!takes(which)) {
    report_declined(call, call_site, "not in RAILYARD_MPI_COLLECTIVES");
    return nullptr;
  }
  if (const auto* declined = std::get_if<Declined>(&bytes)) {
    if (options_.verbose >= 2) {
      report_declined(call, call_site, declined->describe());
    }
    return nullptr;
  }
  const std::size_t size = std::get<std::size_t>(bytes);
  const CarryTable& table = options_.carry;
  if (const std::uint64_t smallest = table.smallest(which); smallest == kNoEnd || size < smallest) {
    // The common case of a call handed back, decided before the
    // communicator is looked at (or built): nothing formatted unless asked.
    if (options_.verbose >= 2) {
      report_declined(
          call, call_site,
          smallest == kNoEnd
              ? fmt::format("{} is carried on no layout (RAILYARD_MPI_MIN_BYTES sets a size)",
                            to_string(which))
              : fmt::format("{} bytes, below the {} {} is carried from", size,
                            describe_size(smallest), to_string(which)));
    }
    return nullptr;
  }
  const CommEntry& entry = entry_for(comm);
  if (!entry.communicator) {
    report_declined(call, call_site, entry.declined);
    return nullptr;
  }
  const Layout layout =
      layout_of(entry.communicator->host_count(), entry.communicator->ranks_per_host());
  if (!table.carries(which, size, layout)) {
    if (options_.verbose >= 2) {
      report_declined(
          call, call_site,
          fmt::format("{} bytes, and on its layout ({}) {} is carried {}", size, to_string(layout),
                      to_string(which), table.describe(which, layout)));
    }
    return nullptr;
  }
  return &*entry.communicator;
}

const Shim::CommEntry& Shim::entry_for(MPI_Comm comm) {
  static const CommEntry null_entry{std::nullopt, "MPI_COMM_NULL (MPI reports it)"};
  static const CommEntry self_entry{std::nullopt, "MPI_COMM_SELF, a communicator of one rank"};
  if (comm == MPI_COMM_WORLD || !world_) {
    return world_entry_;
  }
  if (comm == MPI_COMM_NULL) {
    return null_entry;
  }
  if (comm == MPI_COMM_SELF) {
    return self_entry;
  }
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, comm_keyval_->get(), &value, &found) == MPI_SUCCESS && found != 0) {
    return *static_cast<const CommEntry*>(value);
  }
  auto entry = std::make_unique<CommEntry>(build_entry(comm));
  CommEntry* kept = entry.get();
  {
    const std::scoped_lock lock(mutex_);
    entries_.emplace(kept, std::move(entry));
  }
  const int rc = PMPI_Comm_set_attr(comm, comm_keyval_->get(), kept);
  if (rc != MPI_SUCCESS) {
    // Kept until MPI_Finalize; the next collective on comm builds again,
    // on every rank alike.
    log::warn(
        "MPI shim: MPI_Comm_set_attr failed ({}): the communicator is rebuilt at its next "
        "collective",
        mpi_error_text(rc));
  }
  return *kept;
}

Shim::CommEntry Shim::build_entry(MPI_Comm comm) {
  int inter = 0;
  int size = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
      PMPI_Comm_size(comm, &size) != MPI_SUCCESS) {
    return {std::nullopt, "an invalid communicator (MPI reports it)"};
  }
  if (inter != 0) {
    return {std::nullopt, "an inter-communicator"};
  }
  if (size == 1) {
    return {std::nullopt, "a communicator of one rank"};
  }
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> world_ranks(ranks.size(), MPI_UNDEFINED);
  try {
    const OwnedGroup group(comm);
    const OwnedGroup world_group(MPI_COMM_WORLD);
    check_mpi(PMPI_Group_translate_ranks(group.get(), size, ranks.data(), world_group.get(),
                                         world_ranks.data()),
              "MPI_Group_translate_ranks");
  } catch (const std::exception& error) {
    return {std::nullopt, error.what()};
  }
  if (std::ranges::find(world_ranks, MPI_UNDEFINED) != world_ranks.end()) {
    return {std::nullopt, "ranks from outside MPI_COMM_WORLD (spawned or connected processes)"};
  }
  // Every rank of comm makes the same two MPI_Allreduce calls here, in
  // the same order, whether or not its part succeeds.
  bool agreed = false;
  CommEntry entry;
  int built = 1;
  try {
    entry.communicator = world_->create_group(world_ranks, [&](std::uint32_t mine) {
      agreed = true;
      std::uint32_t largest = 0;
      check_mpi(PMPI_Allreduce(&mine, &largest, 1, MPI_UINT32_T, MPI_MAX, comm), "MPI_Allreduce");
      return largest;
    });
  } catch (const std::exception& error) {
    built = 0;
    entry.declined = fmt::format("railyard could not build it: {}", error.what());
    if (!agreed) {
      std::uint32_t none = 0;
      std::uint32_t largest = 0;
      (void)PMPI_Allreduce(&none, &largest, 1, MPI_UINT32_T, MPI_MAX, comm);
    }
  }
  int all_built = 0;
  if (PMPI_Allreduce(&built, &all_built, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS ||
      all_built == 0) {
    entry.communicator.reset();
    if (entry.declined.empty()) {
      entry.declined = "another rank could not build its railyard communicator";
    }
  }
  return entry;
}

}  // namespace railyard::mpi_shim
