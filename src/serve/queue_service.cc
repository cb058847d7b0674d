#include "serve/queue_service.h"

#include <algorithm>

#include "core/job_array.h"
#include "config/job_file.h"
#include "config/job_values.h"
#include "config/data_path.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "core/output_path.h"
#include "exec/run_files.h"
#include "exec/supervisor.h"
#include "exec/user_file.h"
#include "exec/unix_account.h"
#include "serve/capacity_requests.h"
#include "serve/job_json.h"
#include "serve/log_text.h"
#include "serve/prometheus_text.h"

namespace squeeze {
namespace {

constexpr int kMaxPage = 1000;
// The most job ids one submission's dependencies may hold, over all its tasks.
constexpr size_t kMaxDependencyLinks = 1'000'000;

// JSON text as the daemon writes it: a byte that is not UTF-8 (in a row an older squeeze
// left, say) becomes U+FFFD instead of an exception and a 500.
std::string JsonText(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// An event as `who` sees it: its detail for the job's owner and the admins, else its text. A
// checkpoint event an older squeeze stored with the marker's text in it shows none of it.
std::string EventText(const JobEvent& e, bool private_fields) {
  if (private_fields) return e.detail.empty() ? e.text : e.detail;
  if (e.kind == "checkpoint" && e.text.starts_with("checkpoint saved: ")) return "checkpoint saved";
  return e.text;
}

// A job the store has just accepted, handed to the live queue as the store holds it.
void HandToQueue(LiveQueue& queue, JobId id, JobRequest request, const std::string& owner,
                 Time now) {
  StoredJob stored;
  stored.id = id;
  stored.request = std::move(request);
  stored.request.spec.id = id;
  stored.owner = owner;
  stored.submitted_at = now;
  stored.held = stored.request.hold;
  stored.not_before = stored.request.begin;
  if (stored.held) stored.reason = "submitted held";
  queue.Add(stored);
}

}  // namespace

bool QueueService::MaySee(const Principal& who, const StoredJob& job) {
  return who.admin || who.user == job.owner;
}

QueueService::QueueService(std::string data_dir, JobStore& store, LiveQueue& queue,
                           std::function<Time()> clock, std::function<void()> wake,
                           GpuSampleStore* samples, JobLimits limits)
    : data_dir_(std::move(data_dir)),
      store_(store),
      queue_(queue),
      clock_(std::move(clock)),
      wake_(std::move(wake)),
      samples_(samples),
      admission_(std::move(limits), queue.waiting()) {}


ApiResult QueueService::Submit(const Principal& who, const std::string& body) {
  const Time now = clock_();
  auto request = ParseJobJson(body, now);
  if (!request.ok()) return ApiResult::Fail(400, request.status().message());
  JobSpec& spec = request->spec;
  if (spec.team.empty()) spec.team = who.team;
  if (spec.team != who.team && !who.admin) {
    return ApiResult::Fail(403, "team: you are in team '" + who.team + "', not '" + spec.team +
                                    "'; only an admin submits for another team");
  }
  // Who may ask for what, before anything costly: the urgency, an array's size.
  const int64_t tasks = std::max(1, request->array_size);
  if (Status s = admission_.CheckUrgency(who, spec.team, spec.urgency); !s.ok()) {
    return ApiResult::Fail(403, s.message());
  }
  if (Status s = admission_.CheckTasks(who, spec.team, tasks, request->array); !s.ok()) {
    return ApiResult::Fail(403, s.message());
  }
  if (ApiResult checked = queue_.CheckSubmission(who.user, *request); checked.error) {
    return checked;
  }
  if (!request->dependency.empty()) {
    auto deps = ResolveDependency(request->dependency);
    if (!deps.ok()) return ApiResult::Fail(400, "dependency: " + deps.status().message());
    spec.dependencies = std::move(deps->clauses);
    spec.dependency_any = deps->any;
    // Each task keeps the jobs its dependency names: an array after an array multiplies them.
    size_t named = 0;
    for (const Dependency& d : spec.dependencies) named += d.jobs.size();
    if (named * static_cast<size_t>(tasks) > kMaxDependencyLinks) {
      return ApiResult::Fail(400, "dependency: " + std::to_string(tasks) + " tasks each naming " +
                                      std::to_string(named) + " jobs is more than " +
                                      std::to_string(kMaxDependencyLinks) +
                                      " links in all; name fewer jobs (one task of an array as "
                                      "ID_TASK) or split the array");
    }
  }
  // Last, as the jobs are counted as waiting from here on (given back if they are not stored).
  if (Status s = admission_.ReserveWaiting(who, spec.team, tasks); !s.ok()) {
    return ApiResult::Fail(403, s.message());
  }
  if (!request->array.empty()) return SubmitArray(who, std::move(request).value(), now);
  auto id = store_.Submit(*request, who.user, now);
  if (!id.ok()) {
    admission_.Unreserve(who, spec.team, 1);
    return ApiResult::Fail(id.status().WithContext("not stored"));
  }
  HandToQueue(queue_, *id, std::move(request).value(), who.user, now);
  wake_();
  return ApiResult::Ok({{"id", *id}});
}

Result<QueueService::ResolvedDependency> QueueService::ResolveDependency(
    const std::string& text) {
  auto parsed = ParseDependency(text);
  if (!parsed.ok()) return parsed.status();
  ResolvedDependency out;
  out.any = parsed->any;
  for (const DependencyText::Clause& clause : parsed->clauses) {
    Dependency d;
    d.kind = clause.kind;
    for (const JobRef& ref : clause.jobs) {
      auto job = store_.Get(ref.id);
      if (!job.ok()) return Status::Error("there is no job " + std::to_string(ref.id));
      const bool array_head = job->request.spec.array_id == ref.id && job->request.array_size > 0;
      if (ref.task) {
        auto id = ArrayTaskId(ref.id, *ref.task);
        if (!id.ok()) return id.status();
        d.jobs.push_back(*id);
      } else if (array_head) {
        for (int i = 0; i < job->request.array_size; ++i) d.jobs.push_back(ref.id + i);
      } else {
        d.jobs.push_back(ref.id);
      }
    }
    out.clauses.push_back(std::move(d));
  }
  return out;
}

Result<int64_t> QueueService::ArrayTaskId(int64_t array, int task) {
  auto head = store_.Get(array);
  if (!head.ok()) return Status::Error("there is no job " + std::to_string(array));
  if (head->request.spec.array_id != array || head->request.array.empty()) {
    return Status::Error("job " + std::to_string(array) + " is not a job array");
  }
  auto spec = ParseArraySpec(head->request.array);
  if (!spec.ok()) return spec.status();
  auto it = std::lower_bound(spec->tasks.begin(), spec->tasks.end(), task);
  if (it == spec->tasks.end() || *it != task) {
    return Status::Error("array " + std::to_string(array) + " has no task " +
                         std::to_string(task) + " (its tasks: " + head->request.array + ")");
  }
  return array + (it - spec->tasks.begin());
}

// Every task stored in one transaction (consecutive ids from the array's), each with its
// index in its environment as Slurm gives it, then handed to the queue.
ApiResult QueueService::SubmitArray(const Principal& who, JobRequest request, Time now) {
  auto spec = ParseArraySpec(request.array);
  if (!spec.ok()) {
    admission_.Unreserve(who, request.spec.team, std::max(1, request.array_size));
    return ApiResult::Fail(400, spec.status().message());
  }
  const std::vector<int>& tasks = spec->tasks;
  request.array_size = static_cast<int>(tasks.size());
  request.spec.array_limit = spec->limit;
  int step = tasks.size() > 1 ? tasks[1] - tasks[0] : 1;
  for (size_t i = 1; i < tasks.size(); ++i) step = tasks[i] - tasks[i - 1] == step ? step : 1;
  const std::string count = std::to_string(tasks.size());
  auto make = [&](JobId first, size_t i) {
    JobRequest r = request;
    r.spec.array_id = first;
    r.spec.array_task = tasks[i];
    const std::string array_id = std::to_string(first), task = std::to_string(tasks[i]);
    r.env["SQUEEZE_ARRAY_JOB_ID"] = array_id;
    r.env["SQUEEZE_ARRAY_TASK_ID"] = task;
    r.env["SLURM_ARRAY_JOB_ID"] = array_id;
    r.env["SLURM_ARRAY_TASK_ID"] = task;
    r.env["SLURM_ARRAY_TASK_COUNT"] = count;
    r.env["SLURM_ARRAY_TASK_MIN"] = std::to_string(tasks.front());
    r.env["SLURM_ARRAY_TASK_MAX"] = std::to_string(tasks.back());
    r.env["SLURM_ARRAY_TASK_STEP"] = std::to_string(step);
    return r;
  };
  auto first = store_.SubmitArray(tasks.size(), make, who.user, now);
  if (!first.ok()) {
    admission_.Unreserve(who, request.spec.team, std::max(1, request.array_size));
    return ApiResult::Fail(first.status().WithContext("not stored"));
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    HandToQueue(queue_, *first + static_cast<JobId>(i), make(*first, i), who.user, now);
  }
  wake_();
  return ApiResult::Ok({{"id", *first}, {"array_id", *first}, {"tasks", tasks.size()}});
}

namespace {

// GET /v1/jobs's query: state, owner, team, limit, after, order and start (squeue --start);
// the answer of a wrong one names it (400), nullopt when every key is right.
std::optional<ApiResult> ParseListQuery(const std::map<std::string, std::string>& query,
                                        ListFilter& filter, bool& with_start) {
  static const std::vector<std::string_view> kKeys = {"state", "owner", "team", "limit", "after",
                                                      "order", "start"};
  for (const auto& [key, value] : query) {
    if (key == "order") {
      if (value != "id" && value != "ended") {
        return ApiResult::Fail(400, "order: '" + value + "' is not id (the default: by id, "
                                    "paged with after) or ended (ended jobs, the latest end "
                                    "first, one page)");
      }
      filter.latest_end_first = value == "ended";
    } else if (key == "state") {
      for (const std::string& name : SplitList(value, ',')) {
        auto state = ParseJobState(name);
        if (!state) {
          return ApiResult::Fail(400, "state: '" + name + "' is not one of pending, running, "
                                      "checkpointing, done, failed, cancelled, timeout");
        }
        filter.states.push_back(*state);
      }
    } else if (key == "start") {
      if (value != "true" && value != "false") {
        return ApiResult::Fail(400, "start: '" + value + "' is not true or false");
      }
      with_start = value == "true";
    } else if (key == "owner") {
      filter.owner = value;
    } else if (key == "team") {
      filter.team = value;
    } else if (key == "limit" || key == "after") {
      auto n = ParseInt64(value);
      if (!n || *n < 0 || (key == "limit" && (*n < 1 || *n > kMaxPage))) {
        return ApiResult::Fail(400, key + ": '" + value + "' is not " +
                                        (key == "limit" ? "a number from 1 to 1000" : "a job id"));
      }
      if (key == "limit") filter.limit = static_cast<int>(*n);
      if (key == "after") filter.after_id = *n;
    } else {
      auto near = NearestName(key, kKeys);
      return ApiResult::Fail(400, "unknown query parameter '" + key + "'" +
                                      (near ? " (did you mean '" + *near + "'?)" : ""));
    }
  }
  if (!query.count("limit")) filter.limit = 100;
  if (filter.latest_end_first && filter.after_id != 0) {
    return ApiResult::Fail(400, "after: order=ended has one page (of up to 1000 jobs, limit); "
                                "page by id with order=id");
  }
  return std::nullopt;
}

}  // namespace

ApiResult QueueService::List(const Principal& who,
                             const std::map<std::string, std::string>& query) {
  bool with_start = false;
  ListFilter filter;
  if (auto refused = ParseListQuery(query, filter, with_start)) return *refused;
  // A finished job whose text is kept needs no decoding (ListedJobText).
  filter.wants_request = [&](const StoredJob& row) {
    if (!IsFinished(row.state)) return true;
    std::lock_guard lock(finished_text_mu_);
    return !finished_text_.count(FinishedTextKey(row.id, MaySee(who, row)));
  };
  auto jobs = store_.List(filter);
  if (!jobs.ok()) return ApiResult::Fail(jobs.status());
  // Written as text, a finished job's from the piece kept since it was first listed (what a
  // finished job shows does not change): a page costs little however often it is asked for.
  const Time now = clock_();
  std::string page = "{\"jobs\":[";
  for (size_t i = 0; i < jobs->size(); ++i) {
    if (i > 0) page += ',';
    const StoredJob& job = (*jobs)[i];
    if (with_start && job.state == JobState::kPending) {
      // squeue --start: each waiting job's expected start, from the why forecast.
      nlohmann::json j = nlohmann::json::parse(ListedJobText(job, now, MaySee(who, job)));
      const std::optional<Time> at = queue_.ExpectedStart(job.id, now);
      j["expected_start_at"] = at ? nlohmann::json(FormatDateTime(*at)) : nlohmann::json();
      page += JsonText(j);
      continue;
    }
    page += ListedJobText(job, now, MaySee(who, job));
  }
  page += ']';
  if (static_cast<int>(jobs->size()) == filter.limit && !filter.latest_end_first) {
    page += ",\"next_after\":" + std::to_string(jobs->back().id);
  }
  return ApiResult::OkText(page + "}");
}

void QueueService::AddReasonCode(const StoredJob& job, nlohmann::json& out) const {
  if (job.state != JobState::kPending) return;
  const std::string_view code = queue_.ReasonCode(job.id);
  out["reason_code"] = code.empty() ? nlohmann::json() : nlohmann::json(std::string(code));
}

std::string QueueService::ListedJobText(const StoredJob& job, Time now, bool private_fields) {
  const std::vector<std::string> nodes = queue_.cluster().NodeNamesOf(job.gpus);
  if (!IsFinished(job.state)) {
    nlohmann::json j = StoredJobJson(job, now, private_fields, nodes);
    AddReasonCode(job, j);
    return JsonText(j);
  }
  const int64_t key = FinishedTextKey(job.id, private_fields);
  {
    std::lock_guard lock(finished_text_mu_);
    if (auto it = finished_text_.find(key); it != finished_text_.end()) return it->second;
  }
  std::string text = JsonText(StoredJobJson(job, now, private_fields, nodes));
  std::lock_guard lock(finished_text_mu_);
  if (finished_text_.size() >= kFinishedTextKept) finished_text_.clear();
  finished_text_.emplace(key, text);
  return text;
}

ApiResult QueueService::Environment(const Principal& who, int64_t id) {
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  if (!MaySee(who, *job)) {
    return ApiResult::Fail(403, "job " + std::to_string(id) + "'s environment is " + job->owner +
                                    "'s: only its owner or an admin may read it");
  }
  return ApiResult::Ok(JobEnvironmentJson(*job));
}

ApiResult QueueService::Get(const Principal& who, int64_t id) {
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  const bool own = MaySee(who, *job);
  nlohmann::json out = StoredJobJson(*job, clock_(), own, queue_.cluster().NodeNamesOf(job->gpus));
  AddReasonCode(*job, out);
  out["checkpoint_dir"] =
      own ? nlohmann::json(PathsOf(data_dir_, id, 0).checkpoint_dir) : nlohmann::json();
  // One job is shown with its history: submit, starts, stops and why, moves, checkpoints, ends.
  nlohmann::json history = nlohmann::json::array();
  if (auto events = store_.Events(id); events.ok()) {
    for (const JobEvent& e : *events) {
      history.push_back(
          {{"at", FormatDateTime(e.at)}, {"kind", e.kind}, {"text", EventText(e, own)}});
    }
  }
  out["history"] = std::move(history);
  AddArrayProgress(*job, out);
  return ApiResult::Ok(out);
}

ApiResult QueueService::Control(const Principal& who, int64_t id, const std::string& action,
                                const std::string& body) {
  if (action == "update") {  // an array's answer would be a 409 of its first task's 403
    if (std::optional<ApiResult> refused = UrgencyRefused(who, id, body)) return *refused;
  }
  auto job = store_.Get(id);
  if (!job.ok() || job->request.spec.array_id != id || job->request.array_size <= 0) {
    return ControlTask(who, id, action, body);
  }
  // An array's id: every task of it that has not ended (scontrol's way).
  nlohmann::json jobs = nlohmann::json::array();
  int done = 0;
  std::string first_error;
  for (int i = 0; i < job->request.array_size; ++i) {
    auto task = store_.Get(id + i);
    if (!task.ok() || IsFinished(task->state)) continue;
    ApiResult one = ControlTask(who, id + i, action, body);
    if (one.error) {
      if (first_error.empty()) first_error = one.error->message;
      jobs.push_back({{"id", id + i}, {"error", one.error->message}});
    } else {
      jobs.push_back(one.value);
      ++done;
    }
  }
  if (done == 0) {
    return ApiResult::Fail(409, first_error.empty() ? "every task of array " +
                                                          std::to_string(id) + " has ended"
                                                    : first_error);
  }
  return ApiResult::Ok({{"id", id}, {"tasks", done}, {"jobs", std::move(jobs)}});
}

ApiResult QueueService::ControlTask(const Principal& who, int64_t id, const std::string& action,
                                    const std::string& body) {
  const Time now = clock_();
  if (action == "update") {
    if (std::optional<ApiResult> refused = UrgencyRefused(who, id, body)) return *refused;
  }
  ApiResult r = action == "hold"      ? queue_.Hold(who, id, now)
                : action == "release" ? queue_.Release(who, id, now)
                : action == "requeue" ? queue_.Requeue(who, id, now)
                : action == "update"  ? queue_.Update(who, id, body, now)
                                      : ApiResult::Fail(404, "no such endpoint");
  wake_();
  return r;
}

void QueueService::AddArrayProgress(const StoredJob& job, nlohmann::json& out) {
  const JobSpec& spec = job.request.spec;
  if (spec.array_id == 0) return;
  auto head = spec.array_id == job.id ? Result<StoredJob>(job) : store_.Get(spec.array_id);
  if (!head.ok() || head->request.array_size <= 0) return;
  const int size = head->request.array_size;
  auto counts = store_.CountStates(spec.array_id, spec.array_id + size - 1);
  if (!counts.ok()) return;
  nlohmann::json by_state = nlohmann::json::object();
  int ended = 0;
  for (const auto& [state, n] : *counts) {
    by_state[std::string(JobStateName(state))] = n;
    ended += IsFinished(state) ? n : 0;
  }
  out["array_progress"] = {{"array_id", spec.array_id},
                           {"array", head->request.array},
                           {"tasks", size},
                           {"limit", spec.array_limit > 0 ? nlohmann::json(spec.array_limit)
                                                          : nlohmann::json()},
                           {"ended", ended},
                           {"by_state", std::move(by_state)}};
}

ApiResult QueueService::CancelTask(const Principal& who, int64_t id) {
  ApiResult r = queue_.Cancel(who, id, clock_());
  wake_();
  return r;
}

ApiResult QueueService::Cancel(const Principal& who, int64_t id) {
  if (auto job = store_.Get(id);
      job.ok() && job->request.spec.array_id == id && job->request.array_size > 0) {
    // An array's id: every task (scancel's way), in one commit.
    std::vector<JobId> ids;
    for (int i = 0; i < job->request.array_size; ++i) ids.push_back(id + i);
    ApiResult r = queue_.CancelMany(who, ids, clock_());
    if (!r.error) r.value["id"] = id;
    wake_();
    return r;
  }
  ApiResult r = queue_.Cancel(who, id, clock_());
  wake_();
  return r;
}

ApiResult QueueService::Why(const Principal& who, int64_t id) {
  const Time now = clock_();
  if (auto why = queue_.WhyJson(id, now)) return ApiResult::Ok(*why);
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  // Its owner and the admins are told the reason's detail (a path, the command).
  if (MaySee(who, *job) && !job->reason_detail.empty()) job->reason = job->reason_detail;
  std::string line = "it has ended: " + std::string(JobStateName(job->state));
  if (!job->reason.empty()) line += " (" + job->reason + ")";
  if (job->held) {
    // Kept out of the scheduler until released: no cycle considers it, no start is expected.
    line = (job->reason.empty() ? std::string("held") : job->reason) +
           ": it is not started until it is released (squeeze release " + std::to_string(id) + ")";
  } else if (!IsFinished(job->state)) {
    line = "just submitted: the next cycle considers it";
  }
  nlohmann::json out = {{"id", id},
                        {"state", std::string(JobStateName(job->state))},
                        {"explanation", {line}}};
  if (IsFinished(job->state) || job->held) out["expected_start_in_s"] = nullptr;
  if (job->held) out["held"] = true;
  return ApiResult::Ok(out);
}

}  // namespace squeeze
