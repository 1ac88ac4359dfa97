// The thread of a railyard process group that carries its started
// operations to completion: it waits on their railyard requests together
// (a non-blocking collective moves on only while it is waited for), runs
// each one's finish, completes its Work and so runs the callbacks chained
// on its future, as ProcessGroupGloo's worker threads do. Operations are
// started by the caller, in the order the program calls them, so every
// rank starts the group's collectives in the same order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "railyard/comm/communicator.h"
#include "railyard/torch/pending_operation.h"
#include "railyard/torch/progress_census.h"

namespace railyard::pytorch {

class CompletionThread {
 public:
  // `communicator`: whose endpoint the thread waits on (it is woken there
  // when an operation starts); `census`: the group's, which a failure
  // publishes to and a timeout asks (it outlives the thread).
  CompletionThread(comm::Communicator communicator, ProgressCensus& census);
  // Operations still pending fail ("the process group was destroyed") and
  // their requests are dropped, which ends them.
  ~CompletionThread();
  CompletionThread(const CompletionThread&) = delete;
  CompletionThread& operator=(const CompletionThread&) = delete;
  CompletionThread(CompletionThread&&) = delete;
  CompletionThread& operator=(CompletionThread&&) = delete;

  // Takes a started operation. An operation without requests (a group of
  // one) is finished here, in the caller's thread.
  void add(PendingOperation operation);

 private:
  struct Active {
    PendingOperation operation;
    bool failed = false;  // timed out: its Work failed; kept until its requests end
  };

  void run();
  // One wait over every active operation's requests, until one ends, an
  // operation is added, or the next deadline; then completes the
  // operations whose requests are all done.
  void step();
  void fail_overdue();

  comm::Communicator communicator_;
  ProgressCensus& census_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // Set with each operation added (and at the end): a wait on the requests
  // ends to take them in.
  std::atomic<bool> news_{false};
  std::vector<PendingOperation> incoming_;
  bool stopping_ = false;
  std::list<Active> active_;  // only this thread's
  std::thread thread_;
};

// Runs an operation's finish and completes (or fails) its Work.
void complete(PendingOperation& operation) noexcept;

}  // namespace railyard::pytorch
