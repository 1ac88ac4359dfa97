// The collectives through the C API: arguments checked here (null handles,
// enums, roots), the rest by the Communicator's collectives.
#include <memory>

#include "railyard/c_api/detail/arguments.h"
#include "railyard/comm/collectives.h"

namespace rc = railyard::comm;
namespace api = railyard::c_api;

namespace {

// A type (and operation) from C, or the failure recorded.
struct Typed {
  railyard_result_t result = RAILYARD_SUCCESS;
  railyard::collectives::DataType type = railyard::collectives::DataType::kUint8;
  railyard::collectives::ReduceOp op = railyard::collectives::ReduceOp::kSum;
};

Typed typed(railyard_datatype_t type, const railyard_op_t* op, const char* function) {
  Typed out;
  const auto mine = api::data_type_of(type);
  if (!mine) {
    out.result =
        api::fail(RAILYARD_INVALID_ARGUMENT, function, "type is not a railyard_datatype_t");
    return out;
  }
  out.type = *mine;
  if (op != nullptr) {
    const auto operation = api::reduce_op_of(*op);
    if (!operation) {
      out.result = api::fail(RAILYARD_INVALID_ARGUMENT, function, "op is not a railyard_op_t");
      return out;
    }
    out.op = *operation;
  }
  return out;
}

// The blocking form (`run`) when `request` is NULL, else the non-blocking
// one (`start`), whose request is handed out.
template <typename Run, typename Start>
railyard_result_t collective(const char* function, railyard_request_t* request, Run&& run,
                             Start&& start) {
  if (request == nullptr) {
    return api::guarded(function, std::forward<Run>(run));
  }
  *request = nullptr;
  return api::guarded(function, [&] {
    *request = std::make_unique<railyard_request>(railyard_request{start()}).release();
  });
}

railyard_result_t missing_request(const char* function) {
  return api::fail(RAILYARD_INVALID_ARGUMENT, function, "request is NULL");
}

railyard_result_t run_bcast(void* buffer, size_t count, railyard_datatype_t type, int root,
                            railyard_comm_t comm, railyard_request_t* request) {
  const char* function = request != nullptr ? "railyard_ibcast" : "railyard_bcast";
  if (const auto checked = api::check_rank(comm, root, false, function, "root")) {
    return checked;
  }
  const Typed t = typed(type, nullptr, function);
  if (t.result != RAILYARD_SUCCESS) {
    return t.result;
  }
  return collective(
      function, request, [&] { rc::bcast(comm->communicator, buffer, count, t.type, root); },
      [&] { return rc::ibcast(comm->communicator, buffer, count, t.type, root); });
}

railyard_result_t run_allreduce(const void* send, void* recv, size_t count,
                                railyard_datatype_t type, railyard_op_t op, railyard_comm_t comm,
                                railyard_request_t* request) {
  const char* function = request != nullptr ? "railyard_iallreduce" : "railyard_allreduce";
  if (const auto checked = api::check_comm(comm, function)) {
    return checked;
  }
  const Typed t = typed(type, &op, function);
  if (t.result != RAILYARD_SUCCESS) {
    return t.result;
  }
  return collective(
      function, request,
      [&] { rc::allreduce(comm->communicator, send, recv, count, t.type, t.op); },
      [&] { return rc::iallreduce(comm->communicator, send, recv, count, t.type, t.op); });
}

railyard_result_t run_reduce(const void* send, void* recv, size_t count, railyard_datatype_t type,
                             railyard_op_t op, int root, railyard_comm_t comm,
                             railyard_request_t* request) {
  const char* function = request != nullptr ? "railyard_ireduce" : "railyard_reduce";
  if (const auto checked = api::check_rank(comm, root, false, function, "root")) {
    return checked;
  }
  const Typed t = typed(type, &op, function);
  if (t.result != RAILYARD_SUCCESS) {
    return t.result;
  }
  return collective(
      function, request,
      [&] { rc::reduce(comm->communicator, send, recv, count, t.type, t.op, root); },
      [&] { return rc::ireduce(comm->communicator, send, recv, count, t.type, t.op, root); });
}

railyard_result_t run_allgather(const void* send, void* recv, size_t count,
                                railyard_datatype_t type, railyard_comm_t comm,
                                railyard_request_t* request) {
  const char* function = request != nullptr ? "railyard_iallgather" : "railyard_allgather";
  if (const auto checked = api::check_comm(comm, function)) {
    return checked;
  }
  const Typed t = typed(type, nullptr, function);
  if (t.result != RAILYARD_SUCCESS) {
    return t.result;
  }
  return collective(
      function, request, [&] { rc::allgather(comm->communicator, send, recv, count, t.type); },
      [&] { return rc::iallgather(comm->communicator, send, recv, count, t.type); });
}

railyard_result_t run_reduce_scatter(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_op_t op,
                                     railyard_comm_t comm, railyard_request_t* request) {
  const char* function =
      request != nullptr ? "railyard_ireduce_scatter" : "railyard_reduce_scatter";
  if (const auto checked = api::check_comm(comm, function)) {
    return checked;
  }
  const Typed t = typed(type, &op, function);
  if (t.result != RAILYARD_SUCCESS) {
    return t.result;
  }
  return collective(
      function, request,
      [&] { rc::reduce_scatter(comm->communicator, send, recv, count, t.type, t.op); },
      [&] { return rc::ireduce_scatter(comm->communicator, send, recv, count, t.type, t.op); });
}

railyard_result_t run_alltoall(const void* send, void* recv, size_t count, railyard_datatype_t type,
                               railyard_comm_t comm, railyard_request_t* request) {
  const char* function = request != nullptr ? "railyard_ialltoall" : "railyard_alltoall";
  if (const auto checked = api::check_comm(comm, function)) {
    return checked;
  }
  const Typed t = typed(type, nullptr, function);
  if (t.result != RAILYARD_SUCCESS) {
    return t.result;
  }
  return collective(
      function, request, [&] { rc::alltoall(comm->communicator, send, recv, count, t.type); },
      [&] { return rc::ialltoall(comm->communicator, send, recv, count, t.type); });
}

}  // namespace

extern "C" {

railyard_result_t railyard_barrier(railyard_comm_t comm) {
  if (const auto checked = api::check_comm(comm, "railyard_barrier")) {
    return checked;
  }
  return api::guarded("railyard_barrier", [&] { rc::barrier(comm->communicator); });
}

railyard_result_t railyard_ibarrier(railyard_comm_t comm, railyard_request_t* request) {
  if (const auto checked = api::check_comm(comm, "railyard_ibarrier")) {
    return checked;
  }
  if (request == nullptr) {
    return missing_request("railyard_ibarrier");
  }
  return collective(
      "railyard_ibarrier", request, [] {}, [&] { return rc::ibarrier(comm->communicator); });
}

railyard_result_t railyard_bcast(void* buffer, size_t count, railyard_datatype_t type, int root,
                                 railyard_comm_t comm) {
  return run_bcast(buffer, count, type, root, comm, nullptr);
}

railyard_result_t railyard_ibcast(void* buffer, size_t count, railyard_datatype_t type, int root,
                                  railyard_comm_t comm, railyard_request_t* request) {
  if (request == nullptr) {
    return missing_request("railyard_ibcast");
  }
  return run_bcast(buffer, count, type, root, comm, request);
}

railyard_result_t railyard_allreduce(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_op_t op,
                                     railyard_comm_t comm) {
  return run_allreduce(send, recv, count, type, op, comm, nullptr);
}

railyard_result_t railyard_iallreduce(const void* send, void* recv, size_t count,
                                      railyard_datatype_t type, railyard_op_t op,
                                      railyard_comm_t comm, railyard_request_t* request) {
  if (request == nullptr) {
    return missing_request("railyard_iallreduce");
  }
  return run_allreduce(send, recv, count, type, op, comm, request);
}

railyard_result_t railyard_reduce(const void* send, void* recv, size_t count,
                                  railyard_datatype_t type, railyard_op_t op, int root,
                                  railyard_comm_t comm) {
  return run_reduce(send, recv, count, type, op, root, comm, nullptr);
}

railyard_result_t railyard_ireduce(const void* send, void* recv, size_t count,
                                   railyard_datatype_t type, railyard_op_t op, int root,
                                   railyard_comm_t comm, railyard_request_t* request) {
  if (request == nullptr) {
    return missing_request("railyard_ireduce");
  }
  return run_reduce(send, recv, count, type, op, root, comm, request);
}

railyard_result_t railyard_allgather(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_comm_t comm) {
  return run_allgather(send, recv, count, type, comm, nullptr);
}

railyard_result_t railyard_iallgather(const void* send, void* recv, size_t count,
                                      railyard_datatype_t type, railyard_comm_t comm,
                                      railyard_request_t* request) {
  if (request == nullptr) {
    return missing_request("railyard_iallgather");
  }
  return run_allgather(send, recv, count, type, comm, request);
}

railyard_result_t railyard_reduce_scatter(const void* send, void* recv, size_t count,
                                          railyard_datatype_t type, railyard_op_t op,
                                          railyard_comm_t comm) {
  return run_reduce_scatter(send, recv, count, type, op, comm, nullptr);
}

railyard_result_t railyard_ireduce_scatter(const void* send, void* recv, size_t count,
                                           railyard_datatype_t type, railyard_op_t op,
                                           railyard_comm_t comm, railyard_request_t* request) {
  if (request == nullptr) {
    return missing_request("railyard_ireduce_scatter");
  }
  return run_reduce_scatter(send, recv, count, type, op, comm, request);
}

railyard_result_t railyard_alltoall(const void* send, void* recv, size_t count,
                                    railyard_datatype_t type, railyard_comm_t comm) {
  return run_alltoall(send, recv, count, type, comm, nullptr);
}

railyard_result_t railyard_ialltoall(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_comm_t comm,
                                     railyard_request_t* request) {
  if (request == nullptr) {
    return missing_request("railyard_ialltoall");
  }
  return run_alltoall(send, recv, count, type, comm, request);
}

}  // extern "C"
