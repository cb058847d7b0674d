#include "serve/queue_service.h"

#include "config/data_path.h"
#include "config/text_util.h"
#include "core/output_path.h"
#include "exec/run_files.h"
#include "exec/supervisor.h"
#include "exec/unix_account.h"
#include "exec/user_file.h"
#include "serve/log_text.h"

namespace squeeze {

namespace {

// `squeeze logs` of a job with a file of its own for stdout (sbatch -o): that file, which every
// run of the job writes, read as the account the job runs as (squeeze-supervisor --read,
// exec/user_file.h), never by the daemon itself; else an error that says where the output is.
ApiResult OutputFileLog(const StoredJob& job, const RunAsPolicy& run_as,
                        const std::string& data_dir, int64_t attempt, int64_t tail,
                        std::optional<int64_t> from) {
  const JobRequest& r = job.request;
  const std::string id = std::to_string(job.id);
  // The account its runs execute as: its owner's, or the daemon's own ("").
  Result<std::string> account = run_as.AccountFor(job.owner);
  if (!account.ok()) return ApiResult::Fail(409, account.status().message());
  Result<UnixAccount> owner = account->empty() ? CurrentAccount() : AccountNamed(*account);
  if (!owner.ok()) return ApiResult::Fail(409, owner.status().message());
  const std::string workdir = r.workdir.empty() ? data_dir + "/jobs/" + id : r.workdir;
  const OutputRun run{job.id, r.spec.array_id, r.spec.array_task, r.spec.name, owner->name,
                      workdir};
  Result<std::string> path = ExpandOutputPath(r.output_path, run);
  if (!path.ok()) {
    return ApiResult::Fail(409, "output '" + r.output_path + "': " + path.status().message());
  }
  const std::string where = "job " + id + " writes its output to " + *path + " (as user '" +
                            owner->name + "'), not to its log";
  constexpr int kReadTimeoutMs = 5000;
  Result<FileSlice> slice = ReadFileAsUser(
      SupervisorBesideSelf(), ReadSpec{*account, *path, from.value_or(-1), tail}, kReadTimeoutMs);
  if (!slice.ok()) {
    return ApiResult::Fail(409, where + "; it cannot be shown: " + slice.status().message());
  }
  nlohmann::json out = {{"id", job.id},
                        {"attempt", attempt},
                        {"path", *path},
                        {"all_runs", true},  // every run writes (appends to) the one file
                        {"truncated", !from && slice->size > tail},
                        {"size", slice->size},
                        {"text", slice->text}};
  if (!r.error_path.empty()) {
    Result<std::string> error = ExpandOutputPath(r.error_path, run);
    if (error.ok()) out["error_path"] = *error;
  }
  return ApiResult::Ok(std::move(out));
}

}  // namespace

// The stretch as read is bytes a job wrote; JSON carries UTF-8 (log_text.h).
ApiResult QueueService::Log(const Principal& who, int64_t id,
                            const std::map<std::string, std::string>& query) {
  ApiResult read = ReadLog(who, id, query);
  if (read.error || !read.value.contains("text")) return read;
  std::optional<int64_t> from;
  if (auto it = query.find("from_byte"); it != query.end()) from = ParseInt64(it->second);
  const LogText shown = LogTextOf(read.value["text"].get_ref<const std::string&>(),
                                  read.value.value("size", int64_t{0}), from);
  read.value["text"] = shown.text;
  read.value["next_from_byte"] = shown.next_from_byte;
  return read;
}

ApiResult QueueService::ReadLog(const Principal& who, int64_t id,
                                const std::map<std::string, std::string>& query) {
  constexpr int64_t kMaxTail = 1 << 20;
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  if (!MaySee(who, *job)) {
    return ApiResult::Fail(403, "job " + std::to_string(id) + "'s log is " + job->owner +
                                    "'s: only its owner or an admin may read it");
  }
  int64_t attempt = job->attempts, tail = 64 * 1024;
  std::optional<int64_t> from;  // from_byte: the text from there on (a follower's next read)
  for (const auto& [key, value] : query) {
    auto n = ParseInt64(value);
    if (key == "attempt") {
      if (!n || *n < 1 || *n > job->attempts) {
        return ApiResult::Fail(400, "attempt: '" + value + "' is not one of job " +
                                        std::to_string(id) + "'s runs (1.." +
                                        std::to_string(job->attempts) + ")");
      }
      attempt = *n;
    } else if (key == "tail_bytes") {
      if (!n || *n < 1 || *n > kMaxTail) {
        return ApiResult::Fail(400, "tail_bytes: '" + value + "' is not a number from 1 to " +
                                        std::to_string(kMaxTail));
      }
      tail = *n;
    } else if (key == "from_byte") {
      if (!n || *n < 0) {
        return ApiResult::Fail(400, "from_byte: '" + value + "' is not a number of 0 or more");
      }
      from = *n;
    } else {
      return ApiResult::Fail(400, "unknown query parameter '" + key +
                                      "' (attempt, tail_bytes, from_byte)");
    }
  }
  if (attempt < 1) return ApiResult::Fail(409, "job " + std::to_string(id) + " has not run yet");
  if (!job->request.output_path.empty()) {
    return OutputFileLog(*job, queue_.run_as(), data_dir_, attempt, tail, from);
  }
  const std::string relative = PathsOf(".", id, static_cast<int>(attempt)).log;
  auto path = ResolveInside(data_dir_, relative);
  if (!path.ok()) return ApiResult::Fail(400, path.status().message());
  // The daemon's own log of a local run (its supervisor writes it), or a Slurm run's, which
  // the job's account writes: read without following a link, at most tail_bytes of it.
  std::vector<uid_t> writers = {geteuid()};
  if (Result<std::string> account = queue_.run_as().AccountFor(job->owner);
      account.ok() && !account->empty()) {
    if (Result<UnixAccount> owner = AccountNamed(*account); owner.ok()) writers.push_back(owner->uid);
  }
  Result<FileSlice> slice = ReadOwnedFileSlice(*path, writers, from.value_or(-1), tail);
  FileSlice empty;
  const FileSlice& read = slice.ok() ? *slice : empty;  // no log yet: nothing to show
  return ApiResult::Ok({{"id", id},
                        {"attempt", attempt},
                        {"path", *path},
                        {"truncated", !from && read.size > tail},
                        {"size", read.size},
                        {"text", read.text}});
}

}  // namespace squeeze
