// Open MPI's own choice for a collective, priced by railyard's cost model
// (railyard/collectives/cost_model.h) so a projection can set the two side
// by side: the algorithm coll/tuned's fixed decision rules pick by
// communicator size and bytes (Open MPI 4.1, the version measured against;
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c), for a commutative
// operation, each algorithm's steps modelled as railyard's are.
#pragma once

#include <string_view>

#include "railyard/collectives/collective.h"
#include "railyard/collectives/cost_model.h"

namespace railyard::info {

struct OpenMpiChoice {
  std::string_view algorithm;  // as coll_tuned_<collective>_algorithm names it
  double predicted_us = 0.0;
};

// Open MPI's choice for `collective` and `query` (bytes as railyard counts
// them: the whole vector a rank contributes or receives). The v-forms
// cost as their equal forms.
[[nodiscard]] OpenMpiChoice openmpi_choice(collectives::Collective collective,
                                           const collectives::CostQuery& query);

}  // namespace railyard::info
