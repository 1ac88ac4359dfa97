// Faulting in a range of this process's memory in one system call.
//
// A page's first touch is a page fault, and on a virtual machine such as
// the one the benchmarks run on each costs about 13 us: zeroing a fresh
// 4 MiB buffer took 13 ms, where MADV_POPULATE_WRITE on it took 0.8 ms
// (docs/benchmarks.md, session 38). Buffers the library fills in turn
// (receive buffers, shared-memory queues) are faulted in this way when
// made, so their first uses do not pay on the message path.
#pragma once

#include <cstddef>

namespace railyard {

// Maps in, writable, every page holding a byte of [address, address +
// bytes), writing nothing (MADV_POPULATE_WRITE, Linux 5.14). Returns false
// when the kernel cannot (an older one, a mapping that refuses) or bytes is
// 0; the pages then fault in as they are used.
bool populate_pages(const void* address, std::size_t bytes) noexcept;

}  // namespace railyard
