// Messages and requests through the C API.
#include <memory>

#include "railyard/c_api/detail/arguments.h"

namespace api = railyard::c_api;

namespace {

void fill(railyard_status_t* status, const railyard::comm::Status& done) {
  if (status != nullptr) {
    status->source = done.source;
    status->tag = done.tag;
    status->bytes = done.bytes;
  }
}

railyard_request_t hand_out(railyard::comm::Request request) {
  return std::make_unique<railyard_request>(railyard_request{std::move(request)}).release();
}

}  // namespace

extern "C" {

railyard_result_t railyard_send(const void* data, size_t bytes, int dest, int tag,
                                railyard_comm_t comm) {
  if (const auto checked = api::check_rank(comm, dest, false, "railyard_send", "dest")) {
    return checked;
  }
  return api::guarded("railyard_send", [&] { comm->communicator.send(data, bytes, dest, tag); });
}

railyard_result_t railyard_recv(void* data, size_t bytes, int source, int tag, railyard_comm_t comm,
                                railyard_status_t* status) {
  if (const auto checked = api::check_rank(comm, source, true, "railyard_recv", "source")) {
    return checked;
  }
  return api::guarded("railyard_recv",
                      [&] { fill(status, comm->communicator.recv(data, bytes, source, tag)); });
}

railyard_result_t railyard_isend(const void* data, size_t bytes, int dest, int tag,
                                 railyard_comm_t comm, railyard_request_t* request) {
  if (const auto checked = api::check_rank(comm, dest, false, "railyard_isend", "dest")) {
    return checked;
  }
  if (request == nullptr) {
    return api::fail(RAILYARD_INVALID_ARGUMENT, "railyard_isend", "request is NULL");
  }
  *request = nullptr;
  return api::guarded("railyard_isend", [&] {
    *request = hand_out(comm->communicator.isend(data, bytes, dest, tag));
  });
}

railyard_result_t railyard_irecv(void* data, size_t bytes, int source, int tag,
                                 railyard_comm_t comm, railyard_request_t* request) {
  if (const auto checked = api::check_rank(comm, source, true, "railyard_irecv", "source")) {
    return checked;
  }
  if (request == nullptr) {
    return api::fail(RAILYARD_INVALID_ARGUMENT, "railyard_irecv", "request is NULL");
  }
  *request = nullptr;
  return api::guarded("railyard_irecv", [&] {
    *request = hand_out(comm->communicator.irecv(data, bytes, source, tag));
  });
}

railyard_result_t railyard_wait(railyard_request_t* request, railyard_status_t* status) {
  if (request == nullptr) {
    return api::fail(RAILYARD_INVALID_ARGUMENT, "railyard_wait", "request is NULL");
  }
  // Freed whatever the outcome: a failed request is finished too.
  const std::unique_ptr<railyard_request> owned(*request);
  *request = nullptr;
  if (!owned) {
    fill(status, railyard::comm::Status{});
    return api::succeed();
  }
  return api::guarded("railyard_wait", [&] { fill(status, owned->request.wait()); });
}

railyard_result_t railyard_test(railyard_request_t* request, int* done, railyard_status_t* status) {
  if (request == nullptr || done == nullptr) {
    return api::fail(RAILYARD_INVALID_ARGUMENT, "railyard_test", "request or done is NULL");
  }
  *done = 1;
  if (*request == nullptr) {
    fill(status, railyard::comm::Status{});
    return api::succeed();
  }
  bool finished = true;  // a request that throws is finished, with its error
  const railyard_result_t result = api::guarded("railyard_test", [&] {
    finished = (*request)->request.test();
    if (finished) {
      fill(status, (*request)->request.status());
    }
  });
  if (finished) {
    const std::unique_ptr<railyard_request> owned(*request);
    *request = nullptr;
  } else {
    *done = 0;
  }
  return result;
}

}  // extern "C"
