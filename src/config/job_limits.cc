#include "config/job_limits.h"

#include <yaml-cpp/yaml.h>

#include "config/cluster_file.h"
#include "config/cluster_yaml_reader.h"
#include "config/file_io.h"
#include "config/text_util.h"
#include "config/yaml_documents.h"
#include "core/duration.h"

namespace squeeze {
namespace {

// A setting from the most specific level that sets it: the user's entry, the team's, the top
// level; else the default. `Get` picks the setting out of a level.
template <typename T, typename Get>
AppliedLimit<T> Resolve(const JobLimits& limits, const std::string* user, const std::string& team,
                        std::string_view key, T fallback, Get get) {
  auto set = [&](const std::string& where, T value) {
    return AppliedLimit<T>{value, "set by an admin as " + where + "." + std::string(key) +
                                      " in " + limits.source};
  };
  if (user != nullptr) {
    if (auto it = limits.users.find(*user); it != limits.users.end() && get(it->second)) {
      return set("limits.users." + *user, *get(it->second));
    }
  }
  if (auto it = limits.teams.find(team); it != limits.teams.end() && get(it->second)) {
    return set("limits.teams." + team, *get(it->second));
  }
  if (get(limits.everyone)) return set("limits", *get(limits.everyone));
  return {fallback, "squeeze's default; an admin sets limits." + std::string(key) +
                        " (or a team's or a user's entry) in " +
                        (limits.source.empty() ? "the cluster file's limits: section or a "
                                                 "--limits file"
                                               : limits.source)};
}

std::string Entries(const std::map<std::string, JobLimitSettings>& entries, const char* kind) {
  std::string out;
  for (const auto& [name, s] : entries) {
    if (!s.max_urgency || *s.max_urgency <= kDefaultMaxUrgency) continue;
    out += std::string(out.empty() ? "" : ", ") + kind + " " + name + " " +
           std::string(UrgencyName(*s.max_urgency));
  }
  return out;
}

}  // namespace

AppliedLimit<Urgency> JobLimits::MaxUrgency(const std::string& user,
                                             const std::string& team) const {
  return Resolve<Urgency>(*this, &user, team, "max_urgency", kDefaultMaxUrgency,
                          [](const JobLimitSettings& s) { return s.max_urgency; });
}

AppliedLimit<int64_t> JobLimits::MaxWaitingJobsPerUser(const std::string& user,
                                                    const std::string& team) const {
  return Resolve<int64_t>(*this, &user, team, "max_waiting_jobs_per_user",
                          kDefaultMaxWaitingJobsPerUser,
                          [](const JobLimitSettings& s) { return s.max_waiting_jobs_per_user; });
}

AppliedLimit<int64_t> JobLimits::MaxWaitingJobsPerTeam(const std::string& team) const {
  return Resolve<int64_t>(*this, nullptr, team, "max_waiting_jobs_per_team",
                          kDefaultMaxWaitingJobsPerTeam,
                          [](const JobLimitSettings& s) { return s.max_waiting_jobs_per_team; });
}

AppliedLimit<int64_t> JobLimits::MaxTasksPerSubmission(const std::string& user,
                                                    const std::string& team) const {
  return Resolve<int64_t>(*this, &user, team, "max_tasks_per_submission",
                          kDefaultMaxTasksPerSubmission,
                          [](const JobLimitSettings& s) { return s.max_tasks_per_submission; });
}

std::string JobLimits::Describe() const {
  const JobLimitSettings& e = everyone;
  std::string above = Entries(teams, "team");
  const std::string users_above = Entries(users, "user");
  above += (above.empty() || users_above.empty() ? "" : ", ") + users_above;
  std::string out = "urgency up to " +
                    std::string(UrgencyName(e.max_urgency.value_or(kDefaultMaxUrgency))) +
                    (above.empty() ? "" : " (above it: " + above + ")") + "; at most " +
                    std::to_string(e.max_waiting_jobs_per_user.value_or(
                        kDefaultMaxWaitingJobsPerUser)) +
                    " waiting jobs per user, " +
                    std::to_string(e.max_waiting_jobs_per_team.value_or(
                        kDefaultMaxWaitingJobsPerTeam)) +
                    " per team, " +
                    std::to_string(e.max_tasks_per_submission.value_or(
                        kDefaultMaxTasksPerSubmission)) +
                    " tasks per submission";
  if (!teams.empty() || !users.empty()) {
    out += " (" + std::to_string(teams.size()) + " team and " + std::to_string(users.size()) +
           " user entries)";
  }
  out += purge_job_details_after > 0
             ? "; a finished job's details purged " + FormatDuration(purge_job_details_after) +
                   " after it ended"
             : "; finished jobs' details kept forever";
  return out + (source.empty() ? " (squeeze's defaults)" : " (from " + source + ")");
}

Result<JobLimits> ParseJobLimitsYaml(std::string_view text, const std::string& source,
                               bool in_cluster_file) {
  return ReadOneYamlDocument<JobLimits>(
      text, source, "a map with key 'limits'", [&](const YAML::Node& doc) -> Result<JobLimits> {
        JobLimits out;
        if (!doc.IsMap()) {
          return Status::Error(source + ": expected a map with key 'limits', got " +
                               cluster_yaml::TypeName(doc));
        }
        cluster_yaml::Fields root;
        for (const auto& entry : doc) {
          const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
          if (key == "limits") {
            root.emplace(key, cluster_yaml::Field{entry.first, entry.second});
          } else if (!in_cluster_file) {
            const int line = entry.first.Mark().is_null() ? 0 : entry.first.Mark().line + 1;
            return Status::Error(source + ":" + std::to_string(line) + ": unknown key '" + key +
                                 "'; a limits file holds only 'limits' (the same section as a "
                                 "cluster file's)");
          }
        }
        if (root.empty()) {
          if (in_cluster_file) return out;
          return Status::Error(source + ": missing required key 'limits'");
        }
        if (Status s = cluster_yaml::ClusterYamlReader(source).ReadLimits(root, out); !s.ok()) {
          return s;
        }
        out.source = source;
        return out;
      });
}

Result<JobLimits> LoadJobLimits(const std::string& cluster_file, const std::string& limits_file) {
  JobLimits from_cluster, from_file;
  if (!cluster_file.empty()) {
    const Result<std::string> text = ReadWholeFile(cluster_file);
    if (!text.ok()) return text.status().WithContext("cluster file");
    if (!IsCsvClusterFile(cluster_file, *text)) {
      auto read = ParseJobLimitsYaml(*text, cluster_file, /*in_cluster_file=*/true);
      if (!read.ok()) return read.status();
      from_cluster = std::move(read).value();
    }
  }
  if (!limits_file.empty()) {
    const Result<std::string> text = ReadWholeFile(limits_file);
    if (!text.ok()) return text.status().WithContext("limits file");
    auto read = ParseJobLimitsYaml(*text, limits_file, /*in_cluster_file=*/false);
    if (!read.ok()) return read.status();
    from_file = std::move(read).value();
  }
  if (!from_cluster.source.empty() && !from_file.source.empty()) {
    return Status::Error("limits: given twice, in the cluster file " + cluster_file +
                         " and in the limits file " + limits_file + "; keep one of them");
  }
  return from_file.source.empty() ? from_cluster : from_file;
}

}  // namespace squeeze
