// The daemon's JobService: what the HTTP API's calls do to the live queue and the store.
// Submissions are parsed and checked (the job file's rules, the cluster's capacity, the
// caller's team), stored durably, then handed to the queue; reads come from the store.
// Thread-safe (the API calls it from many threads).
#ifndef SQUEEZE_SERVE_QUEUE_SERVICE_H_
#define SQUEEZE_SERVE_QUEUE_SERVICE_H_

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "config/job_limits.h"
#include "serve/admission.h"
#include "serve/history_views.h"
#include "serve/job_service.h"
#include "serve/live_queue.h"
#include "store/gpu_sample_store.h"
#include "store/job_store.h"

namespace squeeze {

class QueueService : public JobService {
 public:
  // `clock` gives now (a Time since the epoch); `wake` tells the daemon's loop to step.
  // `samples` keeps the utilization telemetry reports; null: not kept. `limits`: who may ask
  // for what (admission.h), applied at submit and update.
  QueueService(std::string data_dir, JobStore& store, LiveQueue& queue,
               std::function<Time()> clock, std::function<void()> wake,
               GpuSampleStore* samples = nullptr, JobLimits limits = JobLimits());

  ApiResult Submit(const Principal& who, const std::string& body) override;
  ApiResult List(const Principal& who, const std::map<std::string, std::string>& query) override;
  ApiResult Get(const Principal& who, int64_t id) override;
  ApiResult Cancel(const Principal& who, int64_t id) override;
  ApiResult CancelTask(const Principal& who, int64_t id) override;
  ApiResult ControlTask(const Principal& who, int64_t id, const std::string& action,
                        const std::string& body) override;
  Result<int64_t> ArrayTaskId(int64_t array, int task) override;
  ApiResult Control(const Principal& who, int64_t id, const std::string& action,
                    const std::string& body) override;
  ApiResult Why(const Principal& who, int64_t id) override;
  ApiResult Log(const Principal& who, int64_t id,
                const std::map<std::string, std::string>& query) override;
  ApiResult Environment(const Principal& who, int64_t id) override;
  ApiResult Nodes(const Principal& who) override;
  ApiResult Pools(const Principal& who) override;
  ApiResult HeldIdle(const Principal& who) override;
  ApiResult History(const Principal& who,
                    const std::map<std::string, std::string>& query) override;
  ApiResult IdleWindows(const Principal& who,
                        const std::map<std::string, std::string>& query) override;
  ApiResult Cost(const Principal& who, const std::map<std::string, std::string>& query) override;
  ApiResult ReclaimNode(const Principal& who, const std::string& node,
                        const std::string& body) override;
  ApiResult ReturnNode(const Principal& who, const std::string& node) override;
  ApiResult Telemetry(const Principal& who, const std::string& body) override;
  std::string MetricsText() override;

  // Finished jobs' details were purged from the store (store_purger.h): what listings kept
  // written of finished jobs is dropped.
  void DetailsPurged();

  // Telemetry already checked, from POST /v1/telemetry or the daemon's own sampling: applied to
  // the queue (inference loads, held-but-idle runs), and the utilization and memory stored.
  ApiResult ApplyReadings(const std::vector<GpuTelemetry>& gpus, Time at, Time now);

 private:
  struct ResolvedDependency {
    std::vector<Dependency> clauses;
    bool any = false;
  };
  // A dependency as written ("afterok:12:13_2") as job ids: an array's id stands for all its
  // tasks, ID_TASK for one. Errors name the job that does not exist.
  Result<ResolvedDependency> ResolveDependency(const std::string& text);
  ApiResult SubmitArray(const Principal& who, JobRequest request, Time now);
  // A 403 for an update that raises the caller's own job's urgency above their ceiling.
  std::optional<ApiResult> UrgencyRefused(const Principal& who, int64_t id,
                                          const std::string& body);
  // A task's array as "array_progress": its tasks by state.
  void AddArrayProgress(const StoredJob& job, nlohmann::json& out);
  // A waiting job's REASON code (LiveQueue::ReasonCode) as "reason_code".
  void AddReasonCode(const StoredJob& job, nlohmann::json& out) const;
  // A job's log, command line, workdir, env and checkpoint folder are its owner's and the
  // admins'.
  static bool MaySee(const Principal& who, const StoredJob& job);
  // Log's stretch of a run's log (or its -o file) as read: the job's bytes, as they are.
  ApiResult ReadLog(const Principal& who, int64_t id,
                    const std::map<std::string, std::string>& query);
  // One job of a listing as JSON text; a finished job's is kept (by id and whether its private
  // fields are shown), the most recent kFinishedTextKept of them.
  std::string ListedJobText(const StoredJob& job, Time now, bool private_fields);
  static int64_t FinishedTextKey(JobId id, bool private_fields) {
    return id * 2 + (private_fields ? 1 : 0);
  }
  static constexpr size_t kFinishedTextKept = 50000;
  std::mutex finished_text_mu_;
  std::unordered_map<int64_t, std::string> finished_text_;
  // The stored GPU samples in `range`; none when samples are not kept.
  Result<std::vector<GpuSample>> SamplesIn(const HistoryRange& range);

  const std::string data_dir_;
  JobStore& store_;
  LiveQueue& queue_;
  std::function<Time()> clock_;
  std::function<void()> wake_;
  GpuSampleStore* samples_;
  Admission admission_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_QUEUE_SERVICE_H_
