// Owner of an address vector: the table that turns peer address blobs into
// fi_addr_t handles for the data path.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <cstddef>
#include <span>
#include <string>

#include "railyard/fabric/fabric.h"
#include "railyard/fabric/fid_handle.h"

namespace railyard::fabric {

class AddressVector {
 public:
  // A FI_AV_TABLE address vector sized for `expected_peers`.
  AddressVector(const Domain& domain, std::size_t expected_peers);

  // Inserts one address; throws FabricError if the provider rejects it.
  [[nodiscard]] fi_addr_t insert(std::span<const std::byte> address);
  void remove(fi_addr_t peer);
  // The provider's printable form of an address (fi_av_straddr).
  [[nodiscard]] std::string to_string(std::span<const std::byte> address) const;

  [[nodiscard]] fid_av* get() const noexcept { return handle_.get(); }

 private:
  FidHandle<fid_av> handle_;
};

}  // namespace railyard::fabric
