#include "railyard/fabric/fabric.h"

#include <string>

#include "railyard/common/error.h"

namespace railyard::fabric {

Fabric::Fabric(const fi_info& info) {
  fid_fabric* raw = nullptr;
  check_fabric(fi_fabric(info.fabric_attr, &raw, nullptr), "fi_fabric",
               std::string("opening fabric '") + info.fabric_attr->name + "'");
  handle_ = FidHandle<fid_fabric>(raw, "fabric");
}

Domain::Domain(const Fabric& fabric, fi_info& info) {
  fid_domain* raw = nullptr;
  check_fabric(fi_domain(fabric.get(), &info, &raw, nullptr), "fi_domain",
               std::string("opening domain '") + info.domain_attr->name + "'");
  handle_ = FidHandle<fid_domain>(raw, "domain");
}

}  // namespace railyard::fabric
