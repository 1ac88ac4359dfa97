// One subject's figures over several interleaved rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "subject.h"

namespace railyard::bench {

// The row of `subject` (or of one round's `rows`) for `size`, or null.
[[nodiscard]] const Measurement* row_for(const SubjectResult& subject, std::uint64_t size);
[[nodiscard]] const Measurement* row_for(const std::vector<Measurement>& rows, std::uint64_t size);

// `rounds` holds every round's results, the subjects in the same order in
// each. Per subject and size: the lowest latency (each round starts fresh
// processes, and where the scheduler puts them can add a microsecond to
// every round trip of that round; interference only ever adds time) and the
// median bandwidth, over the rounds the subject finished. A subject that
// failed in every round is failed (the last round's error); one that failed
// in some keeps the others' figures and lists the failed rounds in
// round_failures, so that one crash of a baseline's launcher does not void
// a long run. Each round's rows are kept too, in round_rows, one entry per
// round in round order (empty for a round the subject failed), so that two
// subjects' figures of the same round can be paired.
[[nodiscard]] std::vector<SubjectResult> combine_rounds(
    const std::vector<std::vector<SubjectResult>>& rounds);

// `combined` (combine_rounds' output) with each latency replaced by the
// median over the subject's rounds: the lowest says what a subject can do,
// the median how often it does it, on a machine where a whole launch can
// run in a slow state.
[[nodiscard]] std::vector<SubjectResult> with_median_latency(
    const std::vector<SubjectResult>& combined);

// The median over the rounds of one round's latency ratio at `size`: the
// lowest of the `numerators`' latencies in that round over the
// denominator's in the same round, for every round where both measured one;
// null when no round did. On this machine the latency of every subject
// drifts together by up to 2x over minutes (the host's other load): a
// ratio of two figures taken seconds apart, in one round, is not moved by
// a slow stretch that falls on both, as a ratio of each subject's own
// lowest or median over the run can be (it still moves with what changes
// within seconds).
[[nodiscard]] std::optional<double> paired_latency_ratio(
    const std::vector<const SubjectResult*>& numerators, const SubjectResult& denominator,
    std::uint64_t size);

// The launches of a subject that ran in the slow state. On this machine a
// launch of any subject, Open MPI's and the raw rail's included, sometimes
// runs every round trip slower by a constant, for its whole life (where
// the scheduler put the two hosts' processes; binding them does not
// prevent it). A round counts as slow when
// its latency is above `factor` times the subject's lowest at more than
// half of the sizes it measured; `measured` counts the rounds with any
// latency. A subject with more slow launches than the others would point
// at the subject; the same share as the others, at the machine.
struct SlowLaunches {
  std::size_t slow = 0;
  std::size_t measured = 0;
};
[[nodiscard]] SlowLaunches slow_launches(const SubjectResult& combined, double factor);

}  // namespace railyard::bench
