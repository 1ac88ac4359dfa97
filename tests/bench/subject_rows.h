// A subject's results as the benchmark's logic tests build them.
#pragma once

#include "subject.h"

namespace railyard::bench::testing {

// Latency at 8 bytes; the same bandwidth at 64 KiB and 1 MiB.
inline SubjectResult subject(const char* name, double latency_8, double bandwidth) {
  SubjectResult out;
  out.name = name;
  out.rows.push_back(Measurement{8, latency_8, 2.0});
  out.rows.push_back(Measurement{65536, -1, bandwidth});
  out.rows.push_back(Measurement{1 << 20, -1, bandwidth});
  return out;
}

}  // namespace railyard::bench::testing
