// Owner of a passive endpoint: the listening side of connection management.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>

#include <cstddef>
#include <span>
#include <vector>

#include "railyard/fabric/event_queue.h"
#include "railyard/fabric/fabric.h"
#include "railyard/fabric/fid_handle.h"

namespace railyard::fabric {

class PassiveEndpoint {
 public:
  PassiveEndpoint(const Fabric& fabric, fi_info& info);

  // Connection requests are reported on `eq`.
  void bind(const EventQueue& eq);
  void listen();
  // The address it listens on (fi_getname), with the port a port-0 request got.
  [[nodiscard]] std::vector<std::byte> name() const;
  // Turns a connection request down, telling the peer `data`.
  void reject(fid_t request, std::span<const std::byte> data);

  [[nodiscard]] fid_pep* get() const noexcept { return handle_.get(); }

 private:
  FidHandle<fid_pep> handle_;
};

}  // namespace railyard::fabric
