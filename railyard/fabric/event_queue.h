// Owner of an event queue: where connection management reports connection
// requests, established connections, shutdowns and failures.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "railyard/fabric/fabric.h"
#include "railyard/fabric/fid_handle.h"
#include "railyard/fabric/info.h"

namespace railyard::fabric {

// One event as read from the queue, with the connection data it carried.
struct ConnectionEvent {
  std::uint32_t type = 0;       // FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN; 0 for an error
  fid_t fid = nullptr;          // the endpoint (or passive endpoint) it concerns
  FabricInfo info;              // FI_CONNREQ: the request, to accept or reject
  std::vector<std::byte> data;  // the peer's connection data
  int error = 0;                // an error entry: positive errno
  std::string error_text;       // an error entry: the provider's explanation
};

class EventQueue {
 public:
  // Prefers a pollable fd, then a provider wait object, then none.
  explicit EventQueue(const Fabric& fabric);

  // The next event, or nullopt when the queue is empty. Error entries come
  // back as events with error set. Throws FabricError if reading fails.
  [[nodiscard]] std::optional<ConnectionEvent> read();

  // The pollable descriptor, or -1 when the provider offers none.
  [[nodiscard]] int wait_fd() const noexcept { return wait_fd_; }

  [[nodiscard]] fid_eq* get() const noexcept { return handle_.get(); }

 private:
  FidHandle<fid_eq> handle_;
  int wait_fd_ = -1;
};

// "FI_CONNREQ", "FI_CONNECTED", ... for logs and errors.
[[nodiscard]] const char* event_name(std::uint32_t type) noexcept;

}  // namespace railyard::fabric
