#include "railyard/bootstrap/pmix_bootstrap.h"

#include <pmix.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "railyard/common/detail/log.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap {
namespace {

// Keys railyard puts, publishes and fences on carry this prefix.
constexpr const char* kKeyPrefix = "railyard.";

// PMIx values allocated by the library (PMIx_Get's result).
struct ValueRelease {
  void operator()(pmix_value_t* value) const noexcept {
    PMIx_Value_destruct(value);
    // PMIx allocated it with malloc.
    std::free(value);  // NOLINT(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
  }
};
using OwnedValue = std::unique_ptr<pmix_value_t, ValueRelease>;

// An array of pmix_info_t whose values are released with it.
class InfoArray {
 public:
  InfoArray() = default;
  ~InfoArray() {
    for (pmix_info_t& info : infos_) {
      PMIx_Value_destruct(&info.value);
    }
  }
  InfoArray(const InfoArray&) = delete;
  InfoArray& operator=(const InfoArray&) = delete;
  InfoArray(InfoArray&&) = delete;
  InfoArray& operator=(InfoArray&&) = delete;

  void add(const char* key, const void* data, pmix_data_type_t type) {
    pmix_info_t info;
    std::memset(&info, 0, sizeof(info));
    const pmix_status_t rc = PMIx_Info_load(&info, key, data, type);
    if (rc != PMIX_SUCCESS) {
      throw Error("PMIx_Info_load", rc, fmt::format("{}: {}", key, PMIx_Error_string(rc)));
    }
    infos_.push_back(info);
  }
  [[nodiscard]] pmix_info_t* data() noexcept { return infos_.empty() ? nullptr : infos_.data(); }
  [[nodiscard]] std::size_t size() const noexcept { return infos_.size(); }

 private:
  std::vector<pmix_info_t> infos_;
};

// PMIx timeouts are whole seconds; round up, at least one.
int timeout_seconds(std::chrono::milliseconds timeout) {
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(timeout).count();
  return static_cast<int>(std::clamp<long long>(seconds, 1, 86'400));
}

[[noreturn]] void throw_pmix(const char* call, pmix_status_t rc, const std::string& context,
                             std::chrono::milliseconds timeout) {
  if (rc == PMIX_ERR_TIMEOUT) {
    throw TimeoutError(
        fmt::format("{} timed out after {} s: {}", call, timeout_seconds(timeout), context));
  }
  throw Error(call, rc,
              fmt::format("{} failed: {} ({}): {}", call, PMIx_Error_string(rc), rc, context));
}

pmix_proc_t proc_of(const pmix_proc_t& me, pmix_rank_t rank) {
  pmix_proc_t proc;
  std::memset(&proc, 0, sizeof(proc));
  std::memcpy(proc.nspace, me.nspace, sizeof(proc.nspace));
  proc.rank = rank;
  return proc;
}

// The bytes of a value `call` returned for `key`.
Blob bytes_of(const pmix_value_t& value, const char* call, const std::string& key) {
  if (value.type != PMIX_BYTE_OBJECT) {
    throw Error(call, PMIX_ERR_TYPE_MISMATCH,
                fmt::format("key {} holds a {}, expected a byte object", key,
                            PMIx_Data_type_string(value.type)));
  }
  const auto* data = reinterpret_cast<const std::byte*>(value.data.bo.bytes);
  return {data, data + value.data.bo.size};
}

// A byte object naming `bytes`, for PMIx to copy in (it never writes
// through the pointer).
pmix_byte_object_t byte_object(std::span<const std::byte> bytes) {
  pmix_byte_object_t object{};
  object.bytes = const_cast<char*>(reinterpret_cast<const char*>(bytes.data()));
  object.size = bytes.size();
  return object;
}

// One key to look up; its value is released with it.
struct Lookup {
  pmix_pdata_t data{};

  explicit Lookup(const std::string& key) {
    std::memset(&data, 0, sizeof(data));
    std::memcpy(data.key, key.c_str(), key.size() + 1);
  }
  ~Lookup() { PMIx_Value_destruct(&data.value); }
  Lookup(const Lookup&) = delete;
  Lookup& operator=(const Lookup&) = delete;
  Lookup(Lookup&&) = delete;
  Lookup& operator=(Lookup&&) = delete;
};

}  // namespace

// The PMIx client connection: PMIx_Init's counterpart PMIx_Finalize runs
// when it goes.
struct PmixBootstrap::Session {
  pmix_proc_t me{};
  BootstrapOptions options;
  int size = 1;
  unsigned local_rank = 0;
  unsigned local_size = 1;
  std::vector<Blob> descriptors;
  std::uint64_t next_seq = 0;
  bool initialized = false;

  Session() = default;
  ~Session() {
    if (initialized) {
      const pmix_status_t rc = PMIx_Finalize(nullptr, 0);
      if (rc != PMIX_SUCCESS) {
        log::warn("bootstrap: PMIx_Finalize failed: {}", PMIx_Error_string(rc));
      }
    }
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) = delete;
  Session& operator=(Session&&) = delete;

  [[nodiscard]] OwnedValue get(pmix_rank_t rank, const char* key,
                               std::chrono::milliseconds timeout) const {
    const pmix_proc_t proc = proc_of(me, rank);
    InfoArray info;
    const int seconds = timeout_seconds(timeout);
    info.add(PMIX_TIMEOUT, &seconds, PMIX_INT);
    pmix_value_t* value = nullptr;
    const pmix_status_t rc = PMIx_Get(&proc, key, info.data(), info.size(), &value);
    OwnedValue owned(value);
    if (rc != PMIX_SUCCESS || !owned) {
      throw_pmix("PMIx_Get", rc,
                 fmt::format("key {} of rank {}", key,
                             rank == PMIX_RANK_WILDCARD ? std::string("*") : std::to_string(rank)),
                 timeout);
    }
    return owned;
  }

  void put(const std::string& key, std::span<const std::byte> bytes) const {
    pmix_value_t value;
    std::memset(&value, 0, sizeof(value));
    pmix_byte_object_t object = byte_object(bytes);
    pmix_status_t rc = PMIx_Value_load(&value, &object, PMIX_BYTE_OBJECT);
    if (rc == PMIX_SUCCESS) {
      rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &value);
    }
    PMIx_Value_destruct(&value);
    if (rc == PMIX_SUCCESS) {
      rc = PMIx_Commit();
    }
    if (rc != PMIX_SUCCESS) {
      throw_pmix("PMIx_Put", rc, fmt::format("key {}", key), options.timeout);
    }
  }

  void fence(bool collect, std::chrono::milliseconds timeout, const char* what) const {
    const pmix_proc_t all = proc_of(me, PMIX_RANK_WILDCARD);
    InfoArray info;
    const int seconds = timeout_seconds(timeout);
    info.add(PMIX_TIMEOUT, &seconds, PMIX_INT);
    if (collect) {
      const bool yes = true;
      info.add(PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    }
    const pmix_status_t rc = PMIx_Fence(&all, 1, info.data(), info.size());
    if (rc != PMIX_SUCCESS) {
      throw_pmix("PMIx_Fence", rc, fmt::format("rank {}: bootstrap {}", me.rank, what), timeout);
    }
  }

  [[nodiscard]] std::string key_for(const char* what) {
    return fmt::format("{}{}.{}", kKeyPrefix, what, next_seq++);
  }

  std::vector<Blob> gather_all(std::span<const std::byte> mine, std::chrono::milliseconds timeout,
                               const char* what) {
    const std::string key = key_for(what);
    put(key, mine);
    fence(true, timeout, what);
    std::vector<Blob> all;
    all.reserve(static_cast<std::size_t>(size));
    for (int rank = 0; rank < size; ++rank) {
      const OwnedValue value = get(static_cast<pmix_rank_t>(rank), key.c_str(), timeout);
      all.push_back(bytes_of(*value, "PMIx_Get", key));
    }
    return all;
  }
};

// Publish and lookup: a key space the whole job sees.
class PmixBootstrap::PmixStore final : public Store {
 public:
  explicit PmixStore(Session& session) : session_(session) {}

  void set(const std::string& key, std::span<const std::byte> value) override {
    const std::string full = full_key(key);
    const pmix_byte_object_t object = byte_object(value);
    InfoArray info;
    info.add(full.c_str(), &object, PMIX_BYTE_OBJECT);
    const pmix_status_t rc = PMIx_Publish(info.data(), info.size());
    if (rc != PMIX_SUCCESS) {
      throw_pmix("PMIx_Publish", rc, fmt::format("store key '{}'", key), session_.options.timeout);
    }
  }

  // Open MPI 4.1's server ignores PMIX_TIMEOUT on a waiting lookup (it
  // waits forever for a key nobody publishes), so the lookup does not wait:
  // it is retried with backoff until the deadline.
  Blob get(const std::string& key, std::chrono::milliseconds timeout) override {
    const std::string full = full_key(key);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::milliseconds(5);
    while (true) {
      Lookup lookup(full);
      const pmix_status_t rc = PMIx_Lookup(&lookup.data, 1, nullptr, 0);
      if (rc == PMIX_SUCCESS) {
        return bytes_of(lookup.data.value, "PMIx_Lookup", full);
      }
      if (rc != PMIX_ERR_NOT_FOUND) {
        throw_pmix("PMIx_Lookup", rc, fmt::format("store key '{}'", key), timeout);
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        throw TimeoutError(
            fmt::format("rank {}: no rank set the bootstrap store key '{}' within {}",
                        session_.me.rank, key, describe_duration(timeout)));
      }
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
      pause = std::min(pause * 2, std::chrono::milliseconds(200));
    }
  }

 private:
  // Published keys are seen by the whole session: the namespace keeps
  // jobs apart.
  [[nodiscard]] std::string full_key(const std::string& key) const {
    std::string full = fmt::format("{}{}.store.{}", kKeyPrefix, session_.me.nspace, key);
    if (full.size() > PMIX_MAX_KEYLEN) {
      throw UsageError(fmt::format("store key of {} bytes: with its prefix, longer than PMIx's {}",
                                   key.size(), PMIX_MAX_KEYLEN));
    }
    return full;
  }

  Session& session_;
};

std::unique_ptr<PmixBootstrap> PmixBootstrap::connect(std::span<const std::byte> descriptor,
                                                      const BootstrapOptions& options) {
  auto session = std::make_unique<Session>();
  session->options = options;
  const pmix_status_t rc = PMIx_Init(&session->me, nullptr, 0);
  if (rc == PMIX_ERR_UNREACH) {
    log::info("bootstrap: no PMIx server answers (not started by a PMIx launcher)");
    return nullptr;
  }
  if (rc != PMIX_SUCCESS) {
    throw_pmix("PMIx_Init", rc, "connecting to the launcher's PMIx server", options.timeout);
  }
  session->initialized = true;
  const OwnedValue size = session->get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, options.timeout);
  session->size = static_cast<int>(size->data.uint32);
  const OwnedValue local_size = session->get(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, options.timeout);
  session->local_size = local_size->data.uint32;
  const OwnedValue local_rank = session->get(session->me.rank, PMIX_LOCAL_RANK, options.timeout);
  session->local_rank = local_rank->data.uint16;
  session->descriptors = session->gather_all(descriptor, options.timeout, "descriptors");
  log::info("bootstrap: rank {} of {} (local {} of {}) through PMIx namespace {}", session->me.rank,
            session->size, session->local_rank, session->local_size, session->me.nspace);
  return std::unique_ptr<PmixBootstrap>(
      new PmixBootstrap(std::move(session)));  // NOLINT: private constructor
}

PmixBootstrap::PmixBootstrap(std::unique_ptr<Session> session)
    : session_(std::move(session)), store_(std::make_unique<PmixStore>(*session_)) {}

PmixBootstrap::~PmixBootstrap() = default;

int PmixBootstrap::rank() const noexcept { return static_cast<int>(session_->me.rank); }

int PmixBootstrap::size() const noexcept { return session_->size; }

const std::vector<Blob>& PmixBootstrap::descriptors() const noexcept {
  return session_->descriptors;
}

unsigned PmixBootstrap::local_rank() const noexcept { return session_->local_rank; }

unsigned PmixBootstrap::local_size() const noexcept { return session_->local_size; }

std::vector<Blob> PmixBootstrap::allgather(std::span<const std::byte> mine,
                                           std::chrono::milliseconds timeout) {
  return session_->gather_all(mine, timeout, "allgather");
}

Blob PmixBootstrap::broadcast(int root, std::span<const std::byte> data,
                              std::chrono::milliseconds timeout) {
  if (root < 0 || root >= session_->size) {
    throw UsageError(fmt::format("rank {}: broadcast from rank {}, expected 0 to {}", rank(), root,
                                 session_->size - 1));
  }
  const std::string key = session_->key_for("broadcast");
  if (root == rank()) {
    session_->put(key, data);
  }
  session_->fence(true, timeout, "broadcast");
  const OwnedValue value = session_->get(static_cast<pmix_rank_t>(root), key.c_str(), timeout);
  return bytes_of(*value, "PMIx_Get", key);
}

void PmixBootstrap::barrier(std::chrono::milliseconds timeout) {
  session_->fence(false, timeout, "barrier");
}

void PmixBootstrap::abort(int code, const std::string& reason) noexcept {
  std::string message;
  try {
    message = JobFailure::abort_by(rank(), code, reason).message;
  } catch (const std::exception&) {
    message = "railyard: a rank aborted the job";
  }
  log::error("bootstrap: {}", message);
  const pmix_status_t rc = PMIx_Abort(code, message.c_str(), nullptr, 0);
  log::error("bootstrap: PMIx_Abort returned: {}", PMIx_Error_string(rc));
}

Store& PmixBootstrap::store() { return *store_; }

}  // namespace railyard::bootstrap
