#include "slurm/slurm_reconcile.h"

#include <ctime>

#include "slurm/batch_script.h"

namespace squeeze {

SlurmFate FateOf(int64_t slurm_id, const std::vector<SlurmJob>& jobs, const SlurmJob** found) {
  *found = nullptr;
  for (const SlurmJob& j : jobs) {
    if (j.id == slurm_id) *found = &j;
  }
  if (*found == nullptr) return SlurmFate::kMissing;
  const SlurmJob& j = **found;
  if (SlurmStateEnded(j.state)) return SlurmFate::kEnded;
  if (j.state.rfind("REQUEUE", 0) == 0) return SlurmFate::kRequeued;
  if (j.restart_count > 0) return SlurmFate::kRequeued;
  return SlurmFate::kLive;
}

bool SlurmLostIt(const SlurmJob& ended) {
  return ended.state == "NODE_FAIL" || ended.state == "BOOT_FAIL" || ended.state == "PREEMPTED";
}

std::string NodeTrouble(const SlurmNode& node) {
  if (node.usable) return "";
  std::string out = node.state.empty() ? "unknown" : node.state;
  for (const std::string& flag : node.flags) out += ", " + flag;
  if (!node.reason.empty()) out += ": " + node.reason;
  return out;
}

std::string LostReason(const SlurmJob& job, const std::string& ran_on,
                       const std::vector<SlurmNode>& nodes) {
  for (const SlurmNode& n : nodes) {
    // Slurm's list may be a range ("n[0-3]"); a plain name among it is enough here.
    if (ran_on.empty() || ran_on.find(n.name) == std::string::npos) continue;
    if (!n.usable) return "node " + n.name + " failed (" + NodeTrouble(n) + ")";
  }
  std::string out = job.state.rfind("REQUEUE", 0) == 0 || job.state == "PENDING"
                        ? "Slurm requeued it"
                        : job.state;
  if (!job.reason.empty() && job.reason != "None") out += " (" + job.reason + ")";
  if (!ran_on.empty()) out += " after it ran on " + ran_on;
  return out;
}

std::vector<SlurmJob> UnknownSqueezeJobs(const std::vector<SlurmJob>& jobs,
                                         const std::set<int64_t>& followed) {
  std::vector<SlurmJob> out;
  for (const SlurmJob& j : jobs) {
    JobId id = 0;
    int attempt = 0;
    if (!ParseSlurmJobName(j.name, id, attempt) || SlurmStateEnded(j.state)) continue;
    if (!followed.count(j.id)) out.push_back(j);
  }
  return out;
}

ExitStatus SlurmExit(const SlurmJob& job, const std::vector<SlurmNode>& nodes) {
  if (SlurmLostIt(job)) return SlurmLost(LostReason(job, job.nodes, nodes));
  ExitStatus e;
  const int code = job.exit_code.value_or(-1);
  if (code > 128) {
    e.signaled = true;
    e.code = code - 128;
  } else {
    e.code = code;
  }
  if (job.state == "COMPLETED" && job.exit_code) return e;
  if (job.state == "FAILED" && !e.Succeeded() && job.exit_code) return e;
  e.error = "Slurm ended the job " + job.state;
  if (!job.reason.empty() && job.reason != "None") e.error += " (" + job.reason + ")";
  if (!job.start_time) e.error += " before it started";
  if (e.Succeeded()) {
    e.signaled = job.state == "CANCELLED";
    e.code = e.signaled ? 15 : -1;
  }
  return e;
}

ExitStatus SlurmLost(const std::string& why) {
  ExitStatus e;
  e.code = -1;
  e.lost = true;
  e.error = "Slurm lost it: " + why;
  return e;
}

std::string FormatUtc(Time t) {
  const time_t seconds = static_cast<time_t>(WholeSeconds(t));
  struct tm parts;
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string DescribeSlurmJob(const SlurmJob& job) {
  std::string out = "Slurm job " + std::to_string(job.id) + " '" + job.name + "' " + job.state;
  if (!job.nodes.empty()) out += " on " + job.nodes;
  return out;
}

}  // namespace squeeze
