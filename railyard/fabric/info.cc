#include "railyard/fabric/info.h"

#include <rdma/fi_errno.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "railyard/common/detail/env.h"
#include "railyard/common/error.h"
#include "railyard/fabric/detail/ofi_mrail_guard.h"

namespace railyard::fabric {

FabricInfo FabricInfo::allocate() {
  fi_info* info = fi_allocinfo();
  if (info == nullptr) {
    throw FabricError("fi_allocinfo", -FI_ENOMEM, "allocating libfabric hints");
  }
  return FabricInfo(info);
}

FabricInfo FabricInfo::copy_of(const fi_info& entry) {
  fi_info* copy = fi_dupinfo(&entry);
  if (copy == nullptr) {
    throw FabricError("fi_dupinfo", -FI_ENOMEM, "copying a libfabric info entry");
  }
  return FabricInfo(copy);
}

void FabricInfo::set_provider(const std::string& name) {
  // fi_freeinfo releases prov_name with free(), so it must come from malloc.
  // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
  std::free(list_->fabric_attr->prov_name);
  list_->fabric_attr->prov_name = strdup(name.c_str());
  if (list_->fabric_attr->prov_name == nullptr) {
    throw FabricError("strdup", -FI_ENOMEM, "copying the provider name");
  }
}

std::uint32_t api_version() noexcept { return FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION); }

int get_info(const char* node, const char* service, std::uint64_t flags, const FabricInfo& hints,
             FabricInfo& out) {
  // libfabric 1.17's fi_getinfo is not safe to call from several threads at
  // once: 11 to 16 threads opening their rails together crashed in an
  // sscanf inside it (a job of thread ranks, or a program whose threads
  // each open an endpoint). One call at a time; it runs only when rails
  // open.
  static std::mutex one_at_a_time;
  const std::scoped_lock lock(one_at_a_time);
  // The first fi_getinfo of the process lets ofi_mrail cut its variables
  // at the first comma: railyard reads them first, to keep them whole.
  env::protect_from_libfabric();
  // ofi_mrail takes part in calls that name no provider, and in those naming
  // a core provider it layers over ("net;ofi_mrail").
  detail::check_ofi_mrail_addresses();
  fi_info* list = nullptr;
  const int rc = fi_getinfo(api_version(), node, service, flags, hints.get(), &list);
  if (rc == 0) {
    out = FabricInfo(list);
  }
  return rc;
}

}  // namespace railyard::fabric
