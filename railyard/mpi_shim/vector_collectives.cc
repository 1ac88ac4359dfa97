// The blocking collectives with a block per rank at a root (MPI_Gather,
// MPI_Scatter) or a count per rank (MPI_Allgatherv, MPI_Alltoallv,
// MPI_Reduce_scatter), intercepted as collectives.cc does the others. Every
// rank must route a call alike, so each decides on what every rank knows
// alike: a rank's block, or the mean of counts every rank is given.
// docs/mpi.md, "What the shim takes".
#include <mpi.h>

#include <cstddef>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "railyard/comm/collectives.h"
#include "railyard/common/error.h"
#include "railyard/mpi_shim/detail/blocking_collectives.h"
#include "railyard/mpi_shim/detail/collective_arguments.h"
#include "railyard/mpi_shim/detail/shim.h"

namespace railyard::mpi_shim {
namespace {

namespace rc = railyard::comm;

// The ranks of `comm` (the length of its count arrays), or nullopt when the
// call goes to MPI unread: a bad handle MPI reports, or an
// inter-communicator, whose arrays count the remote group's ranks.
std::optional<int> ranks_of(MPI_Comm comm) noexcept {
  int ranks = 0;
  int inter = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0 ||
      PMPI_Comm_size(comm, &ranks) != MPI_SUCCESS || ranks <= 0) {
    return std::nullopt;
  }
  return ranks;
}

// The mean block of `bytes` over `ranks` (the figure RAILYARD_MPI_MIN_BYTES
// is held against), or why not.
std::variant<std::size_t, Declined> mean_block(const std::variant<std::size_t, Declined>& bytes,
                                               int ranks) {
  if (const auto* declined = std::get_if<Declined>(&bytes)) {
    return *declined;
  }
  return std::get<std::size_t>(bytes) / static_cast<std::size_t>(ranks);
}

// At the root of a gather or scatter, its side of the blocks must hold what
// every other rank's does (MPI's rule; the other ranks routed on theirs).
void check_root_block(const char* call, const std::variant<std::size_t, Declined>& root_block,
                      std::size_t block) {
  if (const auto* bytes = std::get_if<std::size_t>(&root_block); bytes != nullptr) {
    if (*bytes == block) {
      return;
    }
    throw UsageError(
        fmt::format("{} at the root: blocks of {} bytes, but the block of every "
                    "rank is {} bytes: expected the same",
                    call, *bytes, block));
  }
  throw UsageError(
      fmt::format("{} at the root: {}; the other ranks' blocks are plain bytes that "
                  "railyard carries",
                  call, std::get<Declined>(root_block).describe()));
}

}  // namespace

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  // The send block: the receive arguments count at the root alone, which
  // in place has no send block.
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto block = in_place ? dense_bytes(recvtype, recvcount) : dense_bytes(sendtype, sendcount);
  const rc::Communicator* target =
      shim.route(MpiCollective::kGather, "MPI_Gather", comm, block, call_site);
  if (target == nullptr || !valid_root(*target, root) || (in_place && target->rank() != root)) {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Gather", [&] {
    const std::size_t bytes = std::get<std::size_t>(block);
    if (target->rank() == root && !in_place) {
      check_root_block("MPI_Gather", dense_bytes(recvtype, recvcount), bytes);
    }
    rc::gather(*target, input(sendbuf), recvbuf, bytes, collectives::DataType::kUint8, root);
  });
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  // The receive block: the send arguments count at the root alone, which
  // in place receives nothing.
  const bool in_place = recvbuf == MPI_IN_PLACE;
  const auto block = in_place ? dense_bytes(sendtype, sendcount) : dense_bytes(recvtype, recvcount);
  const rc::Communicator* target =
      shim.route(MpiCollective::kScatter, "MPI_Scatter", comm, block, call_site);
  if (target == nullptr || !valid_root(*target, root) || (in_place && target->rank() != root)) {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Scatter", [&] {
    const std::size_t bytes = std::get<std::size_t>(block);
    if (target->rank() == root && !in_place) {
      check_root_block("MPI_Scatter", dense_bytes(sendtype, sendcount), bytes);
    }
    // railyard's scatter takes kInPlace as its receive buffer, which it never writes.
    void* recv = in_place ? const_cast<void*>(rc::kInPlace) : recvbuf;  // NOLINT(*-const-cast)
    rc::scatter(*target, sendbuf, recv, bytes, collectives::DataType::kUint8, root);
  });
}

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
               const void* call_site) {
  Shim& shim = Shim::instance();
  const std::optional<int> ranks = ranks_of(comm);
  if (!ranks) {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  }
  // Every rank is given every count: the mean block is the same on all.
  const auto total = vector_bytes(recvcounts, displs, recvtype, *ranks);
  const rc::Communicator* target = shim.route(MpiCollective::kAllgatherv, "MPI_Allgatherv", comm,
                                              mean_block(total, *ranks), call_site);
  if (target == nullptr) {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Allgatherv", [&] {
    const ByteBlocks blocks = byte_blocks(recvcounts, displs, recvtype, *ranks);
    std::size_t mine = blocks.counts[static_cast<std::size_t>(target->rank())];
    if (sendbuf != MPI_IN_PLACE) {
      const auto sent = dense_bytes(sendtype, sendcount);
      if (const auto* declined = std::get_if<Declined>(&sent)) {
        throw UsageError(fmt::format("MPI_Allgatherv: the send block: {}", declined->describe()));
      }
      // railyard checks it against every rank's count of this rank.
      mine = std::get<std::size_t>(sent);
    }
    rc::allgatherv(*target, input(sendbuf), mine, recvbuf, blocks.counts, blocks.displs,
                   collectives::DataType::kUint8);
  });
}

int alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
              void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
              MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const std::optional<int> ranks = ranks_of(comm);
  if (!ranks) {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // Each rank knows its own counts only, so no size can be decided alike:
  // an alltoallv is taken at every size (unless its types are not plain).
  std::variant<std::size_t, Declined> bytes = vector_bytes(recvcounts, rdispls, recvtype, *ranks);
  if (!in_place && std::holds_alternative<std::size_t>(bytes)) {
    bytes = vector_bytes(sendcounts, sdispls, sendtype, *ranks);
  }
  if (std::holds_alternative<std::size_t>(bytes)) {
    bytes = std::numeric_limits<std::size_t>::max();
  }
  const rc::Communicator* target =
      shim.route(MpiCollective::kAlltoallv, "MPI_Alltoallv", comm, bytes, call_site);
  if (target == nullptr) {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Alltoallv", [&] {
    const ByteBlocks received = byte_blocks(recvcounts, rdispls, recvtype, *ranks);
    // In place, railyard reads no send counts: the receive ones stand in.
    const ByteBlocks sent =
        in_place ? received : byte_blocks(sendcounts, sdispls, sendtype, *ranks);
    rc::alltoallv(*target, input(sendbuf), sent.counts, sent.displs, recvbuf, received.counts,
                  received.displs, collectives::DataType::kUint8);
  });
}

int reduce_scatter(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const std::optional<int> ranks = ranks_of(comm);
  if (!ranks) {
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  }
  ReductionArguments reduction = reduction_arguments(datatype, op, 0);
  if (std::holds_alternative<std::size_t>(reduction.bytes)) {
    reduction.bytes = mean_block(vector_bytes(recvcounts, nullptr, datatype, *ranks), *ranks);
  }
  const rc::Communicator* target = shim.route(MpiCollective::kReduceScatter, "MPI_Reduce_scatter",
                                              comm, reduction.bytes, call_site);
  if (target == nullptr) {
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Reduce_scatter", [&] {
    const std::vector<std::size_t> counts(recvcounts, recvcounts + *ranks);
    rc::reduce_scatterv(*target, input(sendbuf), recvbuf, counts, reduction.type, reduction.op);
  });
}

}  // namespace railyard::mpi_shim

extern "C" {

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return railyard::mpi_shim::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    root, comm, __builtin_return_address(0));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return railyard::mpi_shim::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     root, comm, __builtin_return_address(0));
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return railyard::mpi_shim::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                        recvtype, comm, __builtin_return_address(0));
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return railyard::mpi_shim::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                       rdispls, recvtype, comm, __builtin_return_address(0));
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return railyard::mpi_shim::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                            __builtin_return_address(0));
}

}  // extern "C"
