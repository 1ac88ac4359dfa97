#include "run_info.h"

namespace railyard::bench {

double average_busbw(const std::vector<Row>& rows) noexcept {
  double total = 0;
  int measured = 0;
  for (const Row& row : rows) {
    total += row.out_of_place.busbw_gbps;
    ++measured;
    if (row.in_place) {
      total += row.in_place->busbw_gbps;
      ++measured;
    }
  }
  return measured == 0 ? 0 : total / measured;
}

std::uint64_t total_wrong(const std::vector<Row>& rows) noexcept {
  std::uint64_t wrong = 0;
  for (const Row& row : rows) {
    wrong += row.out_of_place.wrong.value_or(0);
    if (row.in_place) {
      wrong += row.in_place->wrong.value_or(0);
    }
  }
  return wrong;
}

}  // namespace railyard::bench
