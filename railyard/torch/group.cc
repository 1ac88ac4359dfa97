#include "railyard/torch/group.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <utility>

namespace railyard::pytorch {

Group::Group(comm::Communicator communicator, std::chrono::milliseconds timeout,
             c10::intrusive_ptr<c10d::Store> store)
    : communicator_(std::move(communicator)),
      timeout_(timeout),
      census_(std::move(store), communicator_.rank(), communicator_.size()),
      completion_(communicator_, census_) {}

std::chrono::milliseconds Group::timeout_of(std::chrono::milliseconds given) const {
  return given == c10d::kUnsetTimeout ? timeout_ : given;
}

void Group::check_root(std::int64_t root, const char* what) const {
  TORCH_CHECK(root >= 0 && root < size(), "railyard ", what, ": root rank ", root,
              " is not a rank of this group of ", size(), " (0 to ", size() - 1, ")");
}

Group::WorkPtr Group::submit(c10d::OpType type, std::string what, std::vector<at::Tensor> outputs,
                             std::chrono::milliseconds timeout,
                             const std::function<Started()>& start, bool reports_source) {
  auto work = c10::make_intrusive<Work>(rank(), type, std::move(outputs));
  Started started = start();
  PendingOperation operation;
  operation.what = std::move(what);
  operation.requests = std::move(started.requests);
  operation.finish = std::move(started.finish);
  operation.keep_alive = std::move(started.keep_alive);
  operation.work = work;
  operation.timeout = timeout;
  // A timeout of "never" (milliseconds::max()) must not overflow the clock.
  constexpr std::chrono::hours kLongest{24 * 365};
  operation.deadline =
      std::chrono::steady_clock::now() + std::min<std::chrono::milliseconds>(timeout, kLongest);
  operation.reports_source = reports_source;
  operation.expected_bytes = started.expected_bytes;
  const bool message = type == c10d::OpType::SEND || type == c10d::OpType::RECV ||
                       type == c10d::OpType::RECVANYSOURCE;
  if (!message) {
    operation.collective_index = census_.count_start();
  }
  completion_.add(std::move(operation));
  return work;
}

}  // namespace railyard::pytorch
