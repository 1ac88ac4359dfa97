// Owners of a fabric and a domain: the provider-level resources one rail opens.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "railyard/fabric/fid_handle.h"

namespace railyard::fabric {

class Fabric {
 public:
  // fi_fabric on the fabric named by `info`.
  explicit Fabric(const fi_info& info);
  [[nodiscard]] fid_fabric* get() const noexcept { return handle_.get(); }

 private:
  FidHandle<fid_fabric> handle_;
};

class Domain {
 public:
  // fi_domain for `info`'s domain on `fabric`.
  Domain(const Fabric& fabric, fi_info& info);
  [[nodiscard]] fid_domain* get() const noexcept { return handle_.get(); }

 private:
  FidHandle<fid_domain> handle_;
};

}  // namespace railyard::fabric
