#include "railyard/mpi_shim/detail/mpi_collective.h"

namespace railyard::mpi_shim {

std::string_view to_string(MpiCollective collective) noexcept {
  switch (collective) {
    case MpiCollective::kAllreduce:
      return "allreduce";
    case MpiCollective::kReduce:
      return "reduce";
    case MpiCollective::kBcast:
      return "bcast";
    case MpiCollective::kAllgather:
      return "allgather";
    case MpiCollective::kReduceScatterBlock:
      return "reduce_scatter_block";
    case MpiCollective::kAlltoall:
      return "alltoall";
    case MpiCollective::kBarrier:
      return "barrier";
    case MpiCollective::kGather:
      return "gather";
    case MpiCollective::kScatter:
      return "scatter";
    case MpiCollective::kAllgatherv:
      return "allgatherv";
    case MpiCollective::kAlltoallv:
      return "alltoallv";
    case MpiCollective::kReduceScatter:
      return "reduce_scatter";
  }
  return "?";
}

}  // namespace railyard::mpi_shim
