// A rank that loads railyard (and with it libfabric and whatever libraries
// libfabric links) and then dies of SIGABRT, for the test that a crashing
// rank leaves nothing behind in its working directory.
#include <cstdlib>

#include "railyard/comm/host_identity.h"

int main() {
  // A call into the library, so the linker keeps it and its dependencies.
  (void)railyard::comm::host_identity();
  std::abort();
}
