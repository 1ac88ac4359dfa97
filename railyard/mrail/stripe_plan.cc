#include "railyard/mrail/stripe_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard::mrail {

StripePlan::StripePlan(std::vector<double> weights, std::uint64_t min_chunk,
                       std::uint64_t alignment)
    : weights_(std::move(weights)), min_chunk_(min_chunk), alignment_(alignment) {
  if (weights_.empty()) {
    throw Error("a stripe plan needs at least one path");
  }
  for (const double weight : weights_) {
    if (!(weight > 0) || !std::isfinite(weight)) {
      throw Error(fmt::format("stripe plan weight {} is not a positive number", weight));
    }
  }
  if (min_chunk_ == 0 || alignment_ == 0 || alignment_ > min_chunk_) {
    throw Error(fmt::format("stripe plan needs 1 <= alignment ({}) <= min_chunk ({})", alignment_,
                            min_chunk_));
  }
}

void StripePlan::split(std::uint64_t size, std::size_t first_path,
                       std::vector<StripePiece>& out) const {
  out.clear();
  const std::size_t path_count = weights_.size();
  first_path %= path_count;
  if (size < 2 * min_chunk_ || path_count == 1) {
    out.push_back(StripePiece{first_path, 0, size});
    return;
  }
  // Candidate paths in rotation order, as many as full min_chunks fit.
  const std::size_t wanted =
      static_cast<std::size_t>(std::min<std::uint64_t>(path_count, size / min_chunk_));
  std::vector<std::size_t> chosen;
  chosen.reserve(wanted);
  for (std::size_t i = 0; i < wanted; ++i) {
    chosen.push_back((first_path + i) % path_count);
  }
  std::vector<std::uint64_t> lengths;
  while (true) {
    double total_weight = 0;
    for (const std::size_t path : chosen) {
      total_weight += weights_[path];
    }
    lengths.assign(chosen.size(), 0);
    std::uint64_t assigned = 0;
    bool too_small = false;
    for (std::size_t i = 0; i + 1 < chosen.size(); ++i) {
      const double share = static_cast<double>(size) * weights_[chosen[i]] / total_weight;
      auto length = static_cast<std::uint64_t>(share);
      length -= length % alignment_;
      lengths[i] = length;
      assigned += length;
      too_small = too_small || length < min_chunk_;
    }
    lengths.back() = size - assigned;
    too_small = too_small || lengths.back() < min_chunk_;
    if (!too_small || chosen.size() == 1) {
      break;
    }
    // Drop the lightest path (the latest in rotation order among equals).
    std::size_t lightest = 0;
    for (std::size_t i = 1; i < chosen.size(); ++i) {
      if (weights_[chosen[i]] <= weights_[chosen[lightest]]) {
        lightest = i;
      }
    }
    chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(lightest));
  }
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    out.push_back(StripePiece{chosen[i], offset, lengths[i]});
    offset += lengths[i];
  }
}

}  // namespace railyard::mrail
