// The API's service over its real parts, for tests: a SQLite store and the local executor in a
// fresh data directory, a live queue on virtual GPUs and the QueueService over them, at
// scheduling times the test sets (`now`); processes run in real time. The runs still going
// when it goes are killed. Not thread-safe.
#ifndef SQUEEZE_SERVE_TESTING_LIVE_SERVICE_H_
#define SQUEEZE_SERVE_TESTING_LIVE_SERVICE_H_

#include <signal.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/live_queue.h"
#include "serve/queue_service.h"

namespace squeeze::testing {

struct LiveService {
  // `gpus`: the virtual GPUs ("4"); `policy`: a named policy ("fifo", "backfill"). `work`, a
  // folder for the jobs' workdirs, is made.
  LiveService(const std::string& prefix, const std::string& gpus, const std::string& policy,
              const LiveQueueOptions& options)
      : dir(prefix) {
    store = std::move(JobStore::Open(dir.path()).value());
    executor = std::make_unique<LocalExecutor>(ExecutorOptions{dir.path(), "", 5000});
    GpuInventory found{"virtual", VirtualGpus(gpus).value(), {}};
    queue = LiveQueue::Create(BuildLocalCluster(found, std::nullopt, "testhost").value(),
                              NamedPolicy(policy).value(), *store, *executor, options)
                .value();
    service = std::make_unique<QueueService>(dir.path(), *store, *queue,
                                             [this] { return now; }, [] {});
    std::filesystem::create_directories(work);
  }
  ~LiveService() {
    service.reset();
    queue.reset();
    LocalExecutor sweeper(ExecutorOptions{dir.path(), "", 5000});
    if (auto runs = sweeper.Reattach(); runs.ok()) {
      for (const RunInfo& r : *runs) {
        if (!r.exit) kill(-r.pgid, SIGKILL);
      }
    }
  }
  LiveService(const LiveService&) = delete;
  LiveService& operator=(const LiveService&) = delete;

  TempDir dir;
  const std::string work = dir.path() + "/work";
  std::unique_ptr<JobStore> store;
  std::unique_ptr<LocalExecutor> executor;
  std::unique_ptr<LiveQueue> queue;
  std::unique_ptr<QueueService> service;
  Time now = Seconds(1'800'000'000);
};

}  // namespace squeeze::testing

#endif  // SQUEEZE_SERVE_TESTING_LIVE_SERVICE_H_
