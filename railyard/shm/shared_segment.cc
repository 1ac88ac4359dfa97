#include "railyard/shm/shared_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <utility>

#include "railyard/common/detail/errno_text.h"
#include "railyard/common/detail/populate_pages.h"
#include "railyard/common/detail/unique_fd.h"
#include "railyard/common/error.h"

namespace railyard::shm {
namespace {

// shm_open's rule (a leading slash, then a file name) and NAME_MAX.
void check_name(const std::string& name) {
  constexpr std::size_t kNameMax = 255;
  if (name.size() < 2 || name.front() != '/' || name.find('/', 1) != std::string::npos ||
      name.size() - 1 > kNameMax) {
    throw Error(
        fmt::format("shared segment name \"{}\" is not valid: expected a slash and then "
                    "1 to {} characters without a slash",
                    name, kNameMax));
  }
}

[[noreturn]] void throw_errno(const char* call, const std::string& name, int error) {
  throw Error(call, -error,
              fmt::format("{} failed for shared segment {}: {}", call, name, errno_text(error)));
}

std::byte* map(int fd, const std::string& name, std::size_t bytes) {
  void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (address == MAP_FAILED) {
    throw_errno("mmap", name, errno);
  }
  return static_cast<std::byte*>(address);
}

}  // namespace

SharedSegment SharedSegment::create(const std::string& name, std::size_t bytes) {
  check_name(name);
  if (bytes == 0) {
    throw Error(fmt::format("shared segment {}: a size of 0 bytes; expected at least one", name));
  }
  const UniqueFd fd(::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, S_IRUSR | S_IWUSR));
  if (fd.get() < 0) {
    throw_errno("shm_open", name, errno);
  }
  // From here the name exists: remove it again if the segment cannot be made.
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    const int error = errno;
    (void)::shm_unlink(name.c_str());
    throw_errno("ftruncate", name, error);
  }
  std::byte* data = nullptr;
  try {
    data = map(fd.get(), name, bytes);
  } catch (...) {
    (void)::shm_unlink(name.c_str());
    throw;
  }
  // Faulted in now, not page by page on the collectives' path.
  (void)populate_pages(data, bytes);
  return {name, data, bytes, true};
}

SharedSegment SharedSegment::open(const std::string& name, std::size_t bytes) {
  check_name(name);
  const UniqueFd fd(::shm_open(name.c_str(), O_RDWR, 0));
  if (fd.get() < 0) {
    throw_errno("shm_open", name, errno);
  }
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) {
    throw_errno("fstat", name, errno);
  }
  if (static_cast<std::size_t>(status.st_size) != bytes) {
    throw Error(
        fmt::format("shared segment {} holds {} bytes; expected {}", name, status.st_size, bytes));
  }
  std::byte* data = map(fd.get(), name, bytes);
  (void)populate_pages(data, bytes);
  return {name, data, bytes, false};
}

SharedSegment::SharedSegment(std::string name, std::byte* data, std::size_t size,
                             bool owns_name) noexcept
    : name_(std::move(name)), data_(data), size_(size), owns_name_(owns_name) {}

SharedSegment::~SharedSegment() { release(); }

SharedSegment::SharedSegment(SharedSegment&& other) noexcept
    : name_(std::move(other.name_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      owns_name_(std::exchange(other.owns_name_, false)) {}

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this != &other) {
    release();
    name_ = std::move(other.name_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owns_name_ = std::exchange(other.owns_name_, false);
  }
  return *this;
}

void SharedSegment::unlink() noexcept {
  if (owns_name_) {
    (void)::shm_unlink(name_.c_str());
    owns_name_ = false;
  }
}

void SharedSegment::release() noexcept {
  unlink();
  if (data_ != nullptr) {
    (void)::munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }
}

}  // namespace railyard::shm
