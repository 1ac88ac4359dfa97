#include "railyard/topology/process_binding.h"

#include <sched.h>

#include <cerrno>
#include <memory>

#include <fmt/format.h>

#include "railyard/common/detail/errno_text.h"
#include "railyard/common/error.h"

namespace railyard::topology {
namespace {

struct CpuSetDeleter {
  void operator()(cpu_set_t* set) const noexcept { CPU_FREE(set); }
};

constexpr int kMaxCpus = 1 << 20;

}  // namespace

std::vector<unsigned> process_binding() {
  // The kernel refuses a mask smaller than its own CPU count (EINVAL):
  // grow until it fits.
  for (int cpus = 1024; cpus <= kMaxCpus; cpus *= 2) {
    const std::unique_ptr<cpu_set_t, CpuSetDeleter> set(CPU_ALLOC(cpus));
    if (!set) {
      throw Error("CPU_ALLOC", -ENOMEM, "allocating a CPU mask failed: out of memory");
    }
    const std::size_t bytes = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(bytes, set.get());
    if (::sched_getaffinity(0, bytes, set.get()) != 0) {
      if (errno == EINVAL) {
        continue;
      }
      throw Error("sched_getaffinity", -errno,
                  fmt::format("reading this process's CPU affinity failed: {}", errno_text(errno)));
    }
    std::vector<unsigned> out;
    for (int cpu = 0; cpu < cpus; ++cpu) {
      if (CPU_ISSET_S(static_cast<std::size_t>(cpu), bytes, set.get())) {
        out.push_back(static_cast<unsigned>(cpu));
      }
    }
    return out;
  }
  throw Error("sched_getaffinity", -EINVAL,
              fmt::format("reading this process's CPU affinity failed: the kernel refused every "
                          "mask up to {} CPUs",
                          kMaxCpus));
}

}  // namespace railyard::topology
