// The threads that run the API's handlers, shared fairly between peers: waiting tasks are taken
// round robin by peer, and no peer has more than its share of the workers busy at once, so one
// peer's flood of slow requests leaves workers for everyone else. FairQueue is the pure order
// (not thread-safe); WorkerPool runs it on its threads (thread-safe).
#ifndef SQUEEZE_SERVE_WORKER_POOL_H_
#define SQUEEZE_SERVE_WORKER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace squeeze {

class FairQueue {
 public:
  using Task = std::function<void()>;
  explicit FairQueue(int max_busy_per_peer) : max_busy_per_peer_(max_busy_per_peer) {}
  void Push(const std::string& peer, Task task);
  // The next task to run, and its peer (counted busy until Done): the task of the first peer,
  // in round-robin order, that has one waiting and is under its share; nullopt when none may.
  std::optional<std::pair<std::string, Task>> Pop();
  void Done(const std::string& peer);
  // Every waiting task, taken out (the busy counts stay).
  std::vector<Task> TakeAll();
  size_t waiting() const { return waiting_; }
  int busy(const std::string& peer) const;

 private:
  struct Peer {
    std::deque<Task> tasks;
    int busy = 0;
  };
  const int max_busy_per_peer_;
  std::map<std::string, Peer> peers_;
  std::deque<std::string> ring_;  // peers with waiting tasks, in turn order
  size_t waiting_ = 0;
};

class WorkerPool {
 public:
  WorkerPool(int workers, int max_busy_per_peer);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  void Submit(const std::string& peer, FairQueue::Task task);
  // Lets the running tasks end, drops the waiting ones and joins the threads.
  void Stop();

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable cv_;
  FairQueue queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_WORKER_POOL_H_
