// A named shared-memory segment that the processes of one host map at the
// same size: one creates it, the others open it by name, and the creator
// removes the name once they all have it mapped (or when it is destroyed),
// so that nothing stays in /dev/shm after the job. For collectives that
// exchange data through memory every rank of the host maps, without a
// message per step.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace railyard::shm {

// Railyard's own segments are named "/railyard-segment:<pid>:<uid>:<n>", so
// that the sweep of stale regions (stale_regions.h) knows whose they are.
inline constexpr std::string_view kSegmentPrefix = "railyard-segment:";

class SharedSegment {
 public:
  SharedSegment() = default;
  // Creates the segment `name` ("/railyard-..."; one leading slash, no
  // other) of `bytes` bytes, readable and writable by this user only, maps
  // it and faults it in. Throws Error naming the failing call and the
  // segment: one of that name exists already (EEXIST), the name is not
  // valid, or /dev/shm is full.
  static SharedSegment create(const std::string& name, std::size_t bytes);
  // Opens and maps the segment `name` another process created; throws
  // Error naming it when there is none (ENOENT) or its size is not `bytes`.
  static SharedSegment open(const std::string& name, std::size_t bytes);

  // Unmaps it; the creator also removes its name if unlink() did not.
  ~SharedSegment();
  SharedSegment(SharedSegment&& other) noexcept;
  SharedSegment& operator=(SharedSegment&& other) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  // Removes the name (the creator's part, once every opener has mapped the
  // segment): the mappings stay valid until each process unmaps its own.
  void unlink() noexcept;

  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  SharedSegment(std::string name, std::byte* data, std::size_t size, bool owns_name) noexcept;
  void release() noexcept;

  std::string name_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool owns_name_ = false;  // created here and not yet unlinked
};

}  // namespace railyard::shm
