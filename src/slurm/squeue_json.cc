#include <string>
#include <vector>

#include "slurm/host_list.h"
#include "slurm/json_fields.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

using slurm_json::Json;

const char kSource[] = "squeue --json";

// squeue's exit_code is the wait status: exit N as N << 8, death by signal S as S.
int ShellExitCode(int64_t wait_status) {
  const int signal = static_cast<int>(wait_status & 0x7f);
  if (signal != 0) return 128 + signal;
  return static_cast<int>((wait_status >> 8) & 0xff);
}

Status ReadFields(const Json& item, const std::string& path, SlurmJob* job,
                  std::vector<std::string>* gres_detail, int64_t* exit_code, int64_t* start,
                  int64_t* end) {
  using namespace slurm_json;  // NOLINT(build/namespaces)
  for (Status s : {ReadInt(item, path, "job_id", true, &job->id),
                   ReadString(item, path, "name", false, &job->name),
                   ReadString(item, path, "job_state", true, &job->state),
                   ReadString(item, path, "state_reason", false, &job->reason),
                   ReadString(item, path, "partition", false, &job->partition),
                   ReadString(item, path, "nodes", false, &job->nodes),
                   ReadStrings(item, path, "gres_detail", false, gres_detail),
                   ReadInt(item, path, "restart_cnt", false, &job->restart_count),
                   ReadInt(item, path, "exit_code", false, exit_code),
                   ReadInt(item, path, "submit_time", false, &job->submit_time),
                   ReadInt(item, path, "start_time", false, start),
                   ReadInt(item, path, "end_time", false, end),
                   ReadBool(item, path, "requeue", false, &job->requeue),
                   ReadString(item, path, "comment", false, &job->comment),
                   ReadString(item, path, "current_working_directory", false, &job->workdir)}) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Result<SlurmJob> ReadJob(const Json& item, const std::string& path) {
  if (!item.is_object()) {
    return Status::Error(path + ": " + slurm_json::Show(item) + " is not an object");
  }
  SlurmJob job;
  std::vector<std::string> gres_detail;
  int64_t exit_code = 0;
  int64_t start = 0;
  int64_t end = 0;
  Status s = ReadFields(item, path, &job, &gres_detail, &exit_code, &start, &end);
  if (!s.ok()) return s;
  if (job.state.empty()) return Status::Error(path + ".job_state: '' is not a job state");
  if (job.id <= 0) {
    return Status::Error(path + ".job_id: '" + std::to_string(job.id) + "' is not a job id");
  }
  Result<std::vector<std::string>> nodes = ExpandHostList(job.nodes);
  if (!nodes.ok()) return nodes.status().WithContext(path + ".nodes");
  for (const std::string& n : *nodes) job.node_gpus.push_back({n, {}});
  for (size_t i = 0; i < gres_detail.size(); ++i) {
    Result<std::vector<int>> indices = ParseGresIndices(gres_detail[i]);
    if (!indices.ok()) {
      return indices.status().WithContext(path + ".gres_detail[" + std::to_string(i) + "]");
    }
    job.gpu_indices.insert(job.gpu_indices.end(), indices->begin(), indices->end());
    // One entry per node, in the node list's order.
    if (i < job.node_gpus.size()) job.node_gpus[i].second = *indices;
  }
  const bool ended = SlurmStateEnded(job.state);
  if (ended) job.exit_code = ShellExitCode(exit_code);
  if (start > 0 && job.state != "PENDING") job.start_time = start;
  if (end > 0 && ended) job.end_time = end;
  return job;
}

}  // namespace

Result<std::vector<SlurmJob>> ParseSqueueJson(std::string_view text) {
  Result<Json> doc = slurm_json::ParseDocument(text, "jobs");
  if (!doc.ok()) return doc.status().WithContext(kSource);
  std::vector<SlurmJob> jobs;
  const Json& items = (*doc)["jobs"];
  for (size_t i = 0; i < items.size(); ++i) {
    Result<SlurmJob> job = ReadJob(items[i], "jobs[" + std::to_string(i) + "]");
    if (!job.ok()) return job.status().WithContext(kSource);
    jobs.push_back(std::move(*job));
  }
  return jobs;
}

}  // namespace squeeze
