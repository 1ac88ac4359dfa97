// What the C API's opaque handles hold. Internal: other code makes handles
// through interop.h.
#pragma once

#include "railyard/c_api/interop.h"
#include "railyard/c_api/railyard.h"
#include "railyard/comm/communicator.h"
#include "railyard/comm/request.h"

struct railyard_comm {
  railyard::comm::Communicator communicator;
};

struct railyard_request {
  railyard::comm::Request request;
};
