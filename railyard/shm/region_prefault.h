// Faulting in the start of a shared-memory region ahead of use.
//
// libfabric's shm provider maps each endpoint's region (its own and every
// peer's) from /dev/shm and writes each message's command into the next
// entry of the receiver's command queue, at the start of the region. The
// queue's pages are first touched one after another as traffic goes round
// it, and on a virtual machine each first touch is a page fault costly
// enough to slow a job's first calls several times over. Faulting those
// pages in when
// the region is mapped moves that cost to start-up, in one call per region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace railyard::shm {

struct FileMapping {
  std::uintptr_t start = 0;
  std::size_t length = 0;
};

// This process's writable mapping of the file `path` from its first byte,
// as /proc/self/maps lists it; none when it maps no such thing.
[[nodiscard]] std::optional<FileMapping> mapping_of_file(const std::string& path);

// Maps into this process, writable, the pages of the first `bytes` of the
// region file `path` ("/dev/shm/4242:0:0", see region_path), as far as this
// process maps that file: the provider's region is left as it is, no byte
// is written. Returns how many bytes it faulted in; 0 when the file is not
// mapped, `bytes` is 0 or the kernel cannot (MADV_POPULATE_WRITE came with
// Linux 5.14), which is logged once at debug level: the region then
// faults in as it is used, as it would have.
std::size_t prefault_region(const std::string& path, std::size_t bytes);

}  // namespace railyard::shm
