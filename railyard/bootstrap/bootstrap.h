// How the ranks of a job find each other before any rail is open: a small
// key-value Store every rank reaches (as Gloo's rendezvous store) and, on
// top of it, the collectives setup needs (allgather of blobs, broadcast,
// barrier) and a job-wide abort. Three implementations: PMIx (under mpirun
// or srun), a root rank others connect to over an rstream channel
// (railyard-run, or any launcher with RAILYARD_ROOT), and an existing MPI
// communicator (the MPI shim). docs/architecture.md, "Bootstrap".
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace railyard::bootstrap {

using Blob = std::vector<std::byte>;

// A key-value store shared by every rank of the job. Keys are at most
// kMaxKeyLength bytes; a value set twice keeps the last one.
class Store {
 public:
  static constexpr std::size_t kMaxKeyLength = 1024;

  Store() = default;
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  Store(Store&&) = delete;
  Store& operator=(Store&&) = delete;

  virtual void set(const std::string& key, std::span<const std::byte> value) = 0;
  // The key's value, waiting up to `timeout` for a rank to set it. Throws
  // TimeoutError naming the key, or the error of a failed job (see
  // Bootstrap::failure).
  [[nodiscard]] virtual Blob get(const std::string& key, std::chrono::milliseconds timeout) = 0;
  // Waits until every key is set, up to `timeout` in all.
  virtual void wait(std::span<const std::string> keys, std::chrono::milliseconds timeout);
};

// Why the job cannot go on, as the bootstrap heard it.
struct JobFailure {
  enum class Kind {
    kAborted,  // `rank` called abort(code)
    kLost,     // `rank`'s connection broke, or it died
    kMisuse,   // `rank` called a different collective than the others
  };
  Kind kind = Kind::kLost;
  int rank = -1;
  int code = 0;  // abort's code
  std::string message;
  std::string reason;  // abort's reason, as the aborting rank gave it

  // `rank` called abort(code, reason).
  [[nodiscard]] static JobFailure abort_by(int rank, int code, const std::string& reason);
};

class Bootstrap {
 public:
  Bootstrap() = default;
  virtual ~Bootstrap() = default;
  Bootstrap(const Bootstrap&) = delete;
  Bootstrap& operator=(const Bootstrap&) = delete;
  Bootstrap(Bootstrap&&) = delete;
  Bootstrap& operator=(Bootstrap&&) = delete;

  [[nodiscard]] virtual int rank() const noexcept = 0;
  [[nodiscard]] virtual int size() const noexcept = 0;
  // "root", "pmix", "mpi" or "single" (a job of one rank).
  [[nodiscard]] virtual const char* method() const noexcept = 0;
  // Every rank's descriptor as given when it joined, in rank order.
  [[nodiscard]] virtual const std::vector<Blob>& descriptors() const noexcept = 0;

  // Collectives: every rank calls them in the same order. Each throws
  // TimeoutError (naming the ranks that did not take part, where the method
  // can tell), RemoteError/AbortError when the job failed, or UsageError
  // when ranks called different collectives at the same step.
  [[nodiscard]] virtual std::vector<Blob> allgather(std::span<const std::byte> mine,
                                                    std::chrono::milliseconds timeout) = 0;
  // `data` is read at `root` only; every rank returns root's bytes.
  [[nodiscard]] virtual Blob broadcast(int root, std::span<const std::byte> data,
                                       std::chrono::milliseconds timeout) = 0;
  virtual void barrier(std::chrono::milliseconds timeout);

  // Tells every rank the job is over: their pending and later calls throw
  // AbortError naming this rank, `code` and `reason`. Never throws; returns
  // once the message left (or could not).
  virtual void abort(int code, const std::string& reason) noexcept = 0;
  // The first abort or lost rank heard of, nullopt while there is none.
  [[nodiscard]] virtual std::optional<JobFailure> failure() const = 0;

  [[nodiscard]] virtual Store& store() = 0;
};

// Throws the error a failed job's calls throw: AbortError, RemoteError
// naming the lost rank, or UsageError.
[[noreturn]] void throw_failure(const JobFailure& failure);

}  // namespace railyard::bootstrap
