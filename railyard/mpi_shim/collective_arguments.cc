#include "railyard/mpi_shim/detail/collective_arguments.h"

namespace railyard::mpi_shim {

ReductionArguments reduction_arguments(MPI_Datatype type, MPI_Op op, int count) {
  ReductionArguments arguments;
  const auto reduction = reduction_of(type, op);
  if (const auto* declined = std::get_if<Declined>(&reduction)) {
    arguments.bytes = *declined;
    return arguments;
  }
  arguments.type = std::get<Reduction>(reduction).type;
  arguments.op = std::get<Reduction>(reduction).op;
  if (count < 0) {
    arguments.bytes = Declined{.why = Declined::Why::kNegativeCount, .first = count};
  } else {
    arguments.bytes = static_cast<std::size_t>(count) * collectives::size_of(arguments.type);
  }
  return arguments;
}

std::variant<std::size_t, Declined> block_bytes(const void* sendbuf, int sendcount,
                                                MPI_Datatype sendtype, int recvcount,
                                                MPI_Datatype recvtype) {
  auto received = dense_bytes(recvtype, recvcount);
  if (sendbuf == MPI_IN_PLACE || std::holds_alternative<Declined>(received)) {
    return received;
  }
  auto sent = dense_bytes(sendtype, sendcount);
  if (std::holds_alternative<Declined>(sent)) {
    return sent;
  }
  if (std::get<std::size_t>(sent) != std::get<std::size_t>(received)) {
    return Declined{.why = Declined::Why::kBlockSizesDiffer,
                    .first = static_cast<std::int64_t>(std::get<std::size_t>(sent)),
                    .second = static_cast<std::int64_t>(std::get<std::size_t>(received))};
  }
  return received;
}

}  // namespace railyard::mpi_shim
