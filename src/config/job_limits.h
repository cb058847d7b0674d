// Who may ask for what on `squeeze serve`, as an admin sets it (docs/operating.md, "Limits: who
// may ask for what"): the highest urgency a user may ask for, caps on waiting jobs per user and
// per team and on tasks per submission (Slurm's QOS MaxPrioThreshold-like ceilings,
// MaxSubmitJobs and MaxArraySize), and how long a finished job's details are kept before they
// are purged (slurmdbd's PurgeJobAfter, but the accounting row stays).
//
//   limits:
//     max_urgency: normal                # everyone's ceiling, unless an entry below says
//     max_waiting_jobs_per_user: 10000   # pending and held, each task of an array counted
//     max_waiting_jobs_per_team: 50000
//     max_tasks_per_submission: 10000    # an array's size
//     purge_job_details_after: 30d       # 0: never
//     teams:
//       ml: {max_urgency: critical, max_waiting_jobs_per_team: 100000}
//     users:
//       sqz-carol: {max_urgency: high, max_waiting_jobs_per_user: 20000}
//
// A setting applies from the most specific place that sets it: the user's entry, then the
// team's, then the top level, then squeeze's default. Plain data once read; thread-safe to read.
#ifndef SQUEEZE_CONFIG_JOB_LIMITS_H_
#define SQUEEZE_CONFIG_JOB_LIMITS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

inline constexpr Urgency kDefaultMaxUrgency = Urgency::kNormal;
inline constexpr int64_t kDefaultMaxWaitingJobsPerUser = 10000;
inline constexpr int64_t kDefaultMaxWaitingJobsPerTeam = 50000;
inline constexpr int64_t kDefaultMaxTasksPerSubmission = 10000;
inline constexpr Time kDefaultPurgeJobDetailsAfter = 30 * kDay;
// The largest values an admin may set.
inline constexpr int64_t kMaxWaitingJobsCap = 10'000'000;

// The settings of one level (the top level, a team, a user); unset: the next level's.
struct JobLimitSettings {
  std::optional<Urgency> max_urgency;
  std::optional<int64_t> max_waiting_jobs_per_user;
  std::optional<int64_t> max_waiting_jobs_per_team;  // not in a user's entry
  std::optional<int64_t> max_tasks_per_submission;
};

// One setting as it applies to someone, and where an admin changes it ("limits.teams.ml.
// max_urgency in /etc/squeeze/cluster.yaml", or the default's own words).
template <typename T>
struct AppliedLimit {
  T value;
  std::string origin;
};

struct JobLimits {
  // Where they were read (a cluster file or a --limits file); empty: squeeze's defaults.
  std::string source;
  JobLimitSettings everyone;
  std::map<std::string, JobLimitSettings> teams;
  std::map<std::string, JobLimitSettings> users;
  Time purge_job_details_after = kDefaultPurgeJobDetailsAfter;  // 0: never

  AppliedLimit<Urgency> MaxUrgency(const std::string& user, const std::string& team) const;
  AppliedLimit<int64_t> MaxWaitingJobsPerUser(const std::string& user,
                                              const std::string& team) const;
  AppliedLimit<int64_t> MaxWaitingJobsPerTeam(const std::string& team) const;
  AppliedLimit<int64_t> MaxTasksPerSubmission(const std::string& user,
                                              const std::string& team) const;
  // One line for the daemon's start: the ceilings above normal, the caps, the retention.
  std::string Describe() const;
};

// Reads the `limits:` section of a YAML document. `in_cluster_file`: the document is a cluster
// file (its other keys are the cluster's, read by ParseClusterYaml); else a limits file, whose
// only key is `limits`. A document without the section gives squeeze's defaults. Every error
// names `source`, the line, the key and the value.
Result<JobLimits> ParseJobLimitsYaml(std::string_view text, const std::string& source,
                               bool in_cluster_file);

// The limits of a daemon: those of its cluster file (`--config`; a CSV file has none) and of a
// limits file (`--limits`), at most one of them with a `limits:` section. Empty paths: not
// given. Errors name the file.
Result<JobLimits> LoadJobLimits(const std::string& cluster_file, const std::string& limits_file);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_LIMITS_H_
