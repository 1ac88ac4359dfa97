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

std::variant<std::size_t, Declined> vector_bytes(const int* counts, const int* displs,
                                                 MPI_Datatype type, int ranks) {
  auto element = dense_bytes(type, 1);
  if (std::holds_alternative<Declined>(element)) {
    return element;
  }
  std::size_t elements = 0;
  for (int r = 0; r < ranks; ++r) {
    if (counts[r] < 0) {
      return Declined{.why = Declined::Why::kNegativeCount, .first = counts[r]};
    }
    if (displs != nullptr && displs[r] < 0) {
      return Declined{.why = Declined::Why::kNegativeDisplacement, .first = r, .second = displs[r]};
    }
    elements += static_cast<std::size_t>(counts[r]);
  }
  return elements * std::get<std::size_t>(element);
}

ByteBlocks byte_blocks(const int* counts, const int* displs, MPI_Datatype type, int ranks) {
  // A dense type's extent is its size: displacements scale by it too.
  const std::size_t element = std::get<std::size_t>(dense_bytes(type, 1));
  ByteBlocks blocks;
  blocks.counts.reserve(static_cast<std::size_t>(ranks));
  blocks.displs.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    blocks.counts.push_back(static_cast<std::size_t>(counts[r]) * element);
    blocks.displs.push_back(static_cast<std::size_t>(displs[r]) * element);
  }
  return blocks;
}

}  // namespace railyard::mpi_shim
