#include "mpi_bench_comm.h"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <stdexcept>

namespace railyard::bench {
namespace {

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) {
    std::array<char, MPI_MAX_ERROR_STRING> text{};
    int length = 0;
    MPI_Error_string(code, text.data(), &length);
    throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text.data(), length)));
  }
}

MPI_Datatype mpi_type(collectives::DataType type) {
  switch (type) {
    case collectives::DataType::kInt8:
      return MPI_INT8_T;
    case collectives::DataType::kInt16:
      return MPI_INT16_T;
    case collectives::DataType::kInt32:
      return MPI_INT32_T;
    case collectives::DataType::kInt64:
      return MPI_INT64_T;
    case collectives::DataType::kUint8:
      return MPI_UINT8_T;
    case collectives::DataType::kUint16:
      return MPI_UINT16_T;
    case collectives::DataType::kUint32:
      return MPI_UINT32_T;
    case collectives::DataType::kUint64:
      return MPI_UINT64_T;
    case collectives::DataType::kFloat32:
      return MPI_FLOAT;
    case collectives::DataType::kFloat64:
      return MPI_DOUBLE;
    case collectives::DataType::kFloat16:
    case collectives::DataType::kBfloat16:
      break;
  }
  throw std::invalid_argument(
      fmt::format("-t {}: MPI has no such type; expected an integer type, "
                  "float or double",
                  collectives::to_string(type)));
}

MPI_Op mpi_op(collectives::ReduceOp op) {
  switch (op) {
    case collectives::ReduceOp::kSum:
      return MPI_SUM;
    case collectives::ReduceOp::kProd:
      return MPI_PROD;
    case collectives::ReduceOp::kMin:
      return MPI_MIN;
    case collectives::ReduceOp::kMax:
      return MPI_MAX;
    case collectives::ReduceOp::kBand:
      return MPI_BAND;
    case collectives::ReduceOp::kBor:
      return MPI_BOR;
    case collectives::ReduceOp::kBxor:
      return MPI_BXOR;
  }
  return MPI_SUM;
}

// MPI counts are ints.
int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument(
        fmt::format("{} elements per call: MPI takes at most {} (an int)", count, INT_MAX));
  }
  return static_cast<int>(count);
}

}  // namespace

void check_mpi_type(collectives::DataType type) { (void)mpi_type(type); }

MpiSession::MpiSession(int& argc, char**& argv) { check(MPI_Init(&argc, &argv), "MPI_Init"); }

MpiSession::~MpiSession() { MPI_Finalize(); }

MpiBenchComm::MpiBenchComm() {
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  // Errors come back as codes, to be thrown with their text.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm host = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
        "MPI_Comm_split_type");
  MPI_Comm_rank(host, &local_rank_);
  MPI_Comm_free(&host);
}

MpiBenchComm::~MpiBenchComm() { MPI_Comm_free(&comm_); }

std::string MpiBenchComm::library() const {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  std::string version(text.data(), static_cast<std::size_t>(length));
  // The first clause: "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4".
  return version.substr(0, version.find_first_of(",\n"));
}

std::string MpiBenchComm::paths() const { return "MPI's transports (see its --mca settings)"; }

void MpiBenchComm::run(const Call& call) {
  const void* send = call.in_place ? MPI_IN_PLACE : call.send;
  const int count = mpi_count(call.count);
  MPI_Datatype type = mpi_type(call.type);
  MPI_Op op = mpi_op(call.op);
  switch (call.operation) {
    case Operation::kAllreduce:
      return check(MPI_Allreduce(send, call.recv, count, type, op, comm_), "MPI_Allreduce");
    case Operation::kBcast:
      return check(MPI_Bcast(call.recv, count, type, call.root, comm_), "MPI_Bcast");
    case Operation::kReduce:
      return check(MPI_Reduce(call.in_place && rank_ != call.root ? call.send : send, call.recv,
                              count, type, op, call.root, comm_),
                   "MPI_Reduce");
    case Operation::kAllgather:
      return check(MPI_Allgather(send, count, type, call.recv, count, type, comm_),
                   "MPI_Allgather");
    case Operation::kReduceScatter:
      return check(MPI_Reduce_scatter_block(send, call.recv, count, type, op, comm_),
                   "MPI_Reduce_scatter_block");
    case Operation::kAlltoall:
      return check(MPI_Alltoall(send, count, type, call.recv, count, type, comm_), "MPI_Alltoall");
    case Operation::kBarrier:
      return check(MPI_Barrier(comm_), "MPI_Barrier");
    case Operation::kSendrecv:
      return check(MPI_Sendrecv(call.send, count, type, (rank_ + 1) % size_, 0, call.recv, count,
                                type, (rank_ + size_ - 1) % size_, 0, comm_, MPI_STATUS_IGNORE),
                   "MPI_Sendrecv");
    case Operation::kGather:
      return check(MPI_Gather(call.send, count, type, call.recv, count, type, call.root, comm_),
                   "MPI_Gather");
    case Operation::kScatter:
      return check(MPI_Scatter(call.send, count, type, call.recv, count, type, call.root, comm_),
                   "MPI_Scatter");
    case Operation::kAllgatherv:
      equal_blocks(count);
      return check(
          MPI_Allgatherv(send, count, type, call.recv, counts_.data(), displs_.data(), type, comm_),
          "MPI_Allgatherv");
    case Operation::kAlltoallv:
      equal_blocks(count);
      return check(MPI_Alltoallv(send, counts_.data(), displs_.data(), type, call.recv,
                                 counts_.data(), displs_.data(), type, comm_),
                   "MPI_Alltoallv");
    case Operation::kReduceScatterv:
      equal_blocks(count);
      return check(MPI_Reduce_scatter(send, call.recv, counts_.data(), type, op, comm_),
                   "MPI_Reduce_scatter");
  }
}

void MpiBenchComm::equal_blocks(int count) {
  const auto ranks = static_cast<std::size_t>(size_);
  if (counts_.size() == ranks && (ranks == 0 || counts_[0] == count)) {
    return;
  }
  // The displacements are ints too: the last block's must fit.
  (void)mpi_count((ranks - 1) * static_cast<std::size_t>(count));
  counts_.assign(ranks, count);
  displs_.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    displs_[r] = static_cast<int>(r) * count;
  }
}

void MpiBenchComm::barrier() { check(MPI_Barrier(comm_), "MPI_Barrier"); }

void MpiBenchComm::allgather(const void* mine, void* all, std::size_t bytes) {
  check(MPI_Allgather(mine, mpi_count(bytes), MPI_BYTE, all, mpi_count(bytes), MPI_BYTE, comm_),
        "MPI_Allgather");
}

double MpiBenchComm::sum(double value) {
  double total = 0;
  check(MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  return total;
}

double MpiBenchComm::max(double value) {
  double largest = 0;
  check(MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return largest;
}

std::uint64_t MpiBenchComm::sum(std::uint64_t value) {
  std::uint64_t total = 0;
  check(MPI_Allreduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  return total;
}

}  // namespace railyard::bench
