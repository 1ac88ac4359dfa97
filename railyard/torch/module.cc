// railyard._c10d: the Python module torch loads the backend from. It
// registers the adapter's class under torch's own ProcessGroup (or
// Backend) class and makes groups; python/railyard/torch.py registers the
// backend with torch.distributed.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/version.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "railyard/common/launch_identity.h"
#include "railyard/torch/group_factory.h"
#include "railyard/torch/process_group.h"

namespace py = pybind11;

namespace {

using railyard::pytorch::DispatchedGroup;
using Adapter = railyard::pytorch::RailyardProcessGroup<DispatchedGroup>;

// The Python object's hold on a group, letting go of the GIL when it drops
// the last reference: the group's completion thread, which the destructor
// joins, may need the GIL to free the tensors it still holds (torch's own
// process groups are held so).
template <typename T>
class NoGilDestructorHolder {
 public:
  NoGilDestructorHolder() = default;
  explicit NoGilDestructorHolder(T* pointer)
      : pointer_(c10::intrusive_ptr<T>::reclaim_copy(pointer)) {}
  explicit NoGilDestructorHolder(c10::intrusive_ptr<T> pointer) : pointer_(std::move(pointer)) {}
  NoGilDestructorHolder(const NoGilDestructorHolder&) = default;
  NoGilDestructorHolder(NoGilDestructorHolder&&) noexcept = default;
  NoGilDestructorHolder& operator=(const NoGilDestructorHolder&) = default;
  NoGilDestructorHolder& operator=(NoGilDestructorHolder&&) noexcept = default;
  // NOLINTNEXTLINE(bugprone-exception-escape): letting go of a GIL held does not throw
  ~NoGilDestructorHolder() {
    if (pointer_ && PyGILState_Check() != 0) {
      const py::gil_scoped_release no_gil;
      pointer_.reset();
    }
  }
  [[nodiscard]] T* get() const noexcept { return pointer_.get(); }

 private:
  c10::intrusive_ptr<T> pointer_;
};

}  // namespace

PYBIND11_DECLARE_HOLDER_TYPE(T, NoGilDestructorHolder<T>, true);

namespace {

// Made with the GIL let go: the ranks wait for each other here.
NoGilDestructorHolder<Adapter> create_group(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                            int size, std::chrono::milliseconds timeout,
                                            const std::vector<int>& world_ranks) {
  TORCH_CHECK(store, "railyard: create_group was given no store");
  return NoGilDestructorHolder<Adapter>(c10::make_intrusive<Adapter>(
      railyard::pytorch::make_group(store, rank, size, timeout, world_ranks)));
}

// Who the launcher says this process is, for python/railyard/torch.py to
// give torch's env:// what it needs under mpirun, srun or mpiexec. Values
// the launcher does not set are None.
py::dict launch_identity() {
  const railyard::LaunchIdentity identity = railyard::launch_identity_from_environment();
  const auto value = [](const std::optional<unsigned>& v) -> py::object {
    return v ? py::object(py::int_(*v)) : py::object(py::none());
  };
  py::dict out;
  out["launcher"] = identity.launcher;
  out["rank"] = value(identity.rank);
  out["size"] = value(identity.size);
  out["local_rank"] = value(identity.local_rank);
  out["local_size"] = value(identity.local_size);
  out["rank_variable"] = identity.rank_variable;
  return out;
}

}  // namespace

PYBIND11_MODULE(_c10d, module) {
  module.doc() = "railyard's torch.distributed backend (import railyard.torch to register it)";
  // The base class must be known to pybind11 before the adapter's.
  py::module_::import("torch.distributed");
  const py::class_<Adapter, DispatchedGroup, NoGilDestructorHolder<Adapter>> adapter(
      module, "ProcessGroupRailyard");
  module.def("create_group", &create_group, py::arg("store"), py::arg("rank"), py::arg("size"),
             py::arg("timeout"), py::arg("world_ranks"), py::call_guard<py::gil_scoped_release>(),
             "A railyard process group: the job's world when world_ranks is empty, else the "
             "group of those default-group ranks.");
  module.def("launch_identity", &launch_identity,
             "The launcher's name and this process's rank, size, local rank and local size as "
             "the launcher's variables give them (railyard/common/launch_identity.h).");
  module.attr("torch_version") = TORCH_VERSION;
  module.attr("dispatches_to_backend") = TORCH_VERSION_MAJOR >= 2;
}
