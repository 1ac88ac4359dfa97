// Owner of an endpoint: the object that posts sends, receives and RMA.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>

#include <cstddef>
#include <span>
#include <vector>

#include "railyard/fabric/address_vector.h"
#include "railyard/fabric/completion_queue.h"
#include "railyard/fabric/event_queue.h"
#include "railyard/fabric/fabric.h"
#include "railyard/fabric/fid_handle.h"

namespace railyard::fabric {

class Endpoint {
 public:
  Endpoint(const Domain& domain, fi_info& info);

  void bind(const AddressVector& av);
  // Both transmit and receive completions go to `cq`.
  void bind(const CompletionQueue& cq);
  void enable();

  // Connection-oriented (FI_EP_MSG) endpoints: connection events go to `eq`.
  void bind(const EventQueue& eq);
  // Starts connecting to `address` (the fi_info's dest_addr when null),
  // sending `data`; FI_CONNECTED or an error follows on the event queue.
  void connect(const void* address, std::span<const std::byte> data);
  // Accepts the connection request this endpoint was opened from.
  void accept(std::span<const std::byte> data);
  // Disconnects (fi_shutdown); returns the provider's code, as teardown
  // goes on whatever it says.
  int shutdown() noexcept;

  // This endpoint's address (fi_getname), valid after enable().
  [[nodiscard]] std::vector<std::byte> name() const;

  [[nodiscard]] fid_ep* get() const noexcept { return handle_.get(); }
  // Closes the endpoint now: operations still posted to it are discarded
  // without completions (fi_endpoint(3)).
  void close() noexcept { handle_.reset(); }

 private:
  FidHandle<fid_ep> handle_;
};

}  // namespace railyard::fabric
