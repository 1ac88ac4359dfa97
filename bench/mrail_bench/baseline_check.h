// Whether a baseline's figures can stand as a baseline. A comparison with a
// baseline that was launched wrong (both ranks bound to one core, the wrong
// transport, one interface instead of all) says nothing about railyard, so
// such a baseline is reported as misconfigured instead of as a result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "subject.h"

namespace railyard::bench {

// A small-message latency above this is a scheduler tick or a wrong
// transport, not a network (every transport measured here takes 5-20 us).
inline constexpr double kMisconfiguredLatencyUs = 100.0;
// Latency is judged at the smallest size measured, when it is at most this:
// larger messages take longer than kMisconfiguredLatencyUs to cross one
// rail at 1 Gbit/s (64 KiB: 135 us), however well launched.
inline constexpr std::uint64_t kLatencyCheckUpTo = 4096;
// Bandwidth is compared from this size, where every baseline that uses the
// rails at all carries at least what one rail carries.
inline constexpr std::uint64_t kBandwidthCheckFrom = 65536;
// Slack below one rail's figure before a baseline counts as carrying less
// (two runs of one rail differ by a few percent).
inline constexpr double kOneRailSlack = 0.95;

// Why `baseline` is misconfigured, or nullopt when its figures are
// plausible. `one_rail` is the raw rail's result of the same run (null when
// it was not measured: then only latency is checked). Latency is checked at
// the smallest size measured when that is at most kLatencyCheckUpTo, and
// bandwidth at the smallest size from 64 KiB both measured.
[[nodiscard]] std::optional<std::string> misconfiguration(const SubjectResult& baseline,
                                                          const SubjectResult* one_rail);

}  // namespace railyard::bench
