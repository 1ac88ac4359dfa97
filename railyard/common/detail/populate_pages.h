// Faulting in a range of this process's memory in one system call.
//
// A page's first touch is a page fault, dear on a virtual machine; one
// MADV_POPULATE_WRITE costs a fraction of touching the pages one by one.
// Buffers the library fills in turn
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
