// Every collective algorithm, by collective and name. Each algorithm adds
// itself, with a Registration in its own file, as the library loads; the
// selection (selection.h) chooses among them.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/collective.h"
#include "railyard/collectives/cost_model.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives {

struct Algorithm {
  Collective collective;
  std::string_view name;
  std::string_view description;  // one line, for railyard-info --algorithms
  CollectiveTask (*run)(Channel channel, CollectiveArgs args);
  // The model's time for a call, in microseconds (cost_model.h).
  double (*cost)(const CostQuery& query);
};

// Every algorithm registered, by collective (in the order of Collective),
// then by name.
[[nodiscard]] std::span<const Algorithm* const> all_algorithms() noexcept;
// The algorithm of `collective` called `name`, or null.
[[nodiscard]] const Algorithm* find_algorithm(Collective collective,
                                              std::string_view name) noexcept;
// The names of `collective`'s algorithms, ", "-separated, for messages.
[[nodiscard]] std::string algorithm_names(Collective collective);

// Adds an algorithm to the registry as the library loads: one object of
// this type per algorithm, at namespace scope in the algorithm's file,
// which holds the entry the registry points to.
class Registration {
 public:
  explicit Registration(const Algorithm& algorithm) noexcept;
  ~Registration() = default;
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  Registration(Registration&&) = delete;
  Registration& operator=(Registration&&) = delete;

 private:
  Algorithm algorithm_;
};

}  // namespace railyard::collectives
