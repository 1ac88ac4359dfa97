#include "railyard/bootstrap/bootstrap.h"

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard::bootstrap {

void Store::wait(std::span<const std::string> keys, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& key : keys) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    (void)get(key, std::max(left, std::chrono::milliseconds(0)));
  }
}

JobFailure JobFailure::abort_by(int rank, int code, const std::string& reason) {
  return {Kind::kAborted, rank, code,
          fmt::format("rank {} aborted the job with code {}: {}", rank, code, reason), reason};
}

void Bootstrap::barrier(std::chrono::milliseconds timeout) { (void)allgather({}, timeout); }

void throw_failure(const JobFailure& failure) {
  if (failure.kind == JobFailure::Kind::kAborted) {
    throw AbortError(failure.rank, failure.code, failure.message);
  }
  if (failure.kind == JobFailure::Kind::kMisuse) {
    throw UsageError(failure.message);
  }
  throw RemoteError(failure.rank >= 0 ? std::optional<int>(failure.rank) : std::nullopt,
                    failure.message);
}

}  // namespace railyard::bootstrap
