#include "round_order.h"

namespace railyard::bench {

std::vector<std::size_t> round_order(std::size_t round, std::size_t rounds, std::size_t subjects) {
  std::vector<std::size_t> order;
  if (subjects == 0) {
    return order;
  }
  order.reserve(subjects);
  // The design's first row: 0, 1, n-1, 2, n-2, ...; row j adds j to each
  // entry (mod n). With n odd those n rows balance the positions but not
  // the predecessors; the same rows reversed complete the design.
  const bool odd = subjects % 2 == 1;
  const std::size_t rows = odd && subjects > 1 ? 2 * subjects : subjects;
  const std::size_t row = rounds != 0 && rounds <= rows ? round * rows / rounds : round % rows;
  const std::size_t shift = row % subjects;
  for (std::size_t k = 0; k < subjects; ++k) {
    const std::size_t first_row = k % 2 == 1 ? (k + 1) / 2 : (subjects - k / 2) % subjects;
    order.push_back((first_row + shift) % subjects);
  }
  if (row >= subjects) {
    order = std::vector<std::size_t>(order.rbegin(), order.rend());
  }
  return order;
}

}  // namespace railyard::bench
