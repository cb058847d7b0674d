// What the HTTP API asks of the daemon, as JSON values, so that the API layer (routing, access,
// limits) stays apart from the queue. Implemented by the daemon; every call is made from the
// API's threads and must be thread-safe. Errors carry an HTTP status and a message.
#ifndef SQUEEZE_SERVE_JOB_SERVICE_H_
#define SQUEEZE_SERVE_JOB_SERVICE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "serve/access.h"
#include "serve/error_kinds.h"

namespace squeeze {

struct ApiError {
  int http_status = 400;  // 400 bad request, 403 not yours, 404 no such job, 409 conflict
  std::string message;
  ErrorKind kind = ErrorKind::kInvalid;  // what the body's "kind" says (serve/error_kinds.h)
};

// A JSON value or an ApiError.
struct ApiResult {
  nlohmann::json value;
  std::optional<ApiError> error;
  // A body already written as JSON text (a large listing put together from pieces kept
  // written), sent instead of `value` when not empty.
  std::string text;
  static ApiResult Ok(nlohmann::json v) { return {std::move(v), std::nullopt, {}}; }
  static ApiResult OkText(std::string json_text) {
    return {nullptr, std::nullopt, std::move(json_text)};
  }
  static ApiResult Fail(int status, std::string message) {
    return {nullptr, ApiError{status, std::move(message), ErrorKindOfHttpStatus(status)}, {}};
  }
  // The HTTP status of the error's kind (serve/error_kinds.h).
  static ApiResult Fail(const Status& error) {
    return {nullptr, ApiError{HttpStatusOf(error.kind()), error.message(), error.kind()}, {}};
  }
  // The body as JSON, whichever way it was given.
  nlohmann::json Body() const { return text.empty() ? value : nlohmann::json::parse(text); }
};

class JobService {
 public:
  virtual ~JobService() = default;
  // body: the job as JSON (docs/job-file.md). {"id": N} once it is stored durably.
  virtual ApiResult Submit(const Principal& who, const std::string& body) = 0;
  // Filters: state, owner, team; limit (<= 1000), after (an id: paging).
  virtual ApiResult List(const Principal& who, const std::map<std::string, std::string>& query) = 0;
  virtual ApiResult Get(const Principal& who, int64_t id) = 0;
  // Only the job's owner or an admin. An array's id cancels all its tasks (as scancel does).
  virtual ApiResult Cancel(const Principal& who, int64_t id) = 0;
  // One task of an array (named as ID_TASK), the others left alone.
  virtual ApiResult CancelTask(const Principal& who, int64_t id) { return Cancel(who, id); }
  // The job id of task `task` of array `array` (the path's 12_4); an error when there is none.
  virtual Result<int64_t> ArrayTaskId(int64_t array, int task) {
    return Status::Error("job " + std::to_string(array) + " is not an array");
  }
  // scontrol's verbs on one job: "hold", "release", "requeue" (no body) and "update" (body
  // {"urgency", "gpus", "time_limit"}).
  virtual ApiResult Control(const Principal& who, int64_t id, const std::string& action,
                            const std::string& body) {
    return ApiResult::Fail(404, "no such endpoint");
  }
  // The same on one task of an array (named as ID_TASK); Control of an array's id acts on all
  // its tasks.
  virtual ApiResult ControlTask(const Principal& who, int64_t id, const std::string& action,
                                const std::string& body) {
    return Control(who, id, action, body);
  }
  virtual ApiResult Why(const Principal& who, int64_t id) = 0;
  // The end of a run's log as {"id", "attempt", "path", "text", "truncated"}; query: attempt
  // (default the latest), tail_bytes (default 65536, at most 1 MiB).
  virtual ApiResult Log(const Principal& who, int64_t id,
                        const std::map<std::string, std::string>& query) = 0;
  // The job's environment's values, {"id", "env", "details_purged_at"}: only its owner or an
  // admin (the job JSON only counts them).
  virtual ApiResult Environment(const Principal& who, int64_t id) = 0;
  virtual ApiResult Nodes(const Principal& who) = 0;
  virtual ApiResult Pools(const Principal& who) = 0;
  // Running jobs whose GPUs stayed nearly unused for long (any authenticated caller).
  virtual ApiResult HeldIdle(const Principal& who) = 0;
  // The history the dashboard draws (any authenticated caller); query: since (a duration back
  // from now) and, for History, step. Queueing delay, GPUs busy and utilization per step;
  // recurring idle windows from the GPU samples; GPU-hours and cost per pool.
  virtual ApiResult History(const Principal& who,
                            const std::map<std::string, std::string>& query) = 0;
  virtual ApiResult IdleWindows(const Principal& who,
                                const std::map<std::string, std::string>& query) = 0;
  virtual ApiResult Cost(const Principal& who, const std::map<std::string, std::string>& query) = 0;
  // Capacity taken away and given back (docs/serve.md, "Spot and colocated pools"); admins
  // only. A spot node's reclaim notice, body {"warning_s": N} or empty; its return; and the
  // telemetry of GPUs, body {"time", "gpus": [{"node", "gpu", "inference_load", "utilization",
  // "memory_used_mib"}]}.
  virtual ApiResult ReclaimNode(const Principal& who, const std::string& node,
                                const std::string& body) = 0;
  virtual ApiResult ReturnNode(const Principal& who, const std::string& node) = 0;
  virtual ApiResult Telemetry(const Principal& who, const std::string& body) = 0;
  // Prometheus text exposition format.
  virtual std::string MetricsText() = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_JOB_SERVICE_H_
