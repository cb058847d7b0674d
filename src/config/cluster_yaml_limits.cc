// The `limits:` section of a cluster file or of a limits file (config/job_limits.h): who may ask
// for what on squeeze serve. Every key is checked; errors name the source, the line, the key
// and the value.
#include <yaml-cpp/yaml.h>

#include "config/cluster_yaml_reader.h"
#include "config/job_limits.h"
#include "config/text_util.h"
#include "core/job_array.h"

namespace squeeze::cluster_yaml {
namespace {

constexpr std::string_view kLimitKeys[] = {"max_urgency",
                                           "max_waiting_jobs_per_user",
                                           "max_waiting_jobs_per_team",
                                           "max_tasks_per_submission",
                                           "purge_job_details_after",
                                           "teams",
                                           "users"};
constexpr std::string_view kTeamKeys[] = {"max_urgency", "max_waiting_jobs_per_user",
                                          "max_waiting_jobs_per_team", "max_tasks_per_submission"};
constexpr std::string_view kUserKeys[] = {"max_urgency", "max_waiting_jobs_per_user",
                                          "max_tasks_per_submission"};

}  // namespace

Status ClusterYamlReader::ReadLimitSettings(const Fields& f, const std::string& path,
                                            JobLimitSettings& out) const {
  if (const auto it = f.find("max_urgency"); it != f.end()) {
    const std::string where = Child(path, "max_urgency");
    Result<std::string> text = Scalar(it->second, where, "an urgency");
    if (!text.ok()) return text.status();
    const std::optional<Urgency> u = ParseUrgency(Trim(*text));
    if (!u) {
      return Error(it->second.At(), where,
                   "value '" + *text + "' is not an urgency; expected critical, high, normal or "
                   "low");
    }
    out.max_urgency = *u;
  }
  const std::pair<std::string_view, std::optional<int64_t>*> caps[] = {
      {"max_waiting_jobs_per_user", &out.max_waiting_jobs_per_user},
      {"max_waiting_jobs_per_team", &out.max_waiting_jobs_per_team},
      {"max_tasks_per_submission", &out.max_tasks_per_submission}};
  for (const auto& [key, target] : caps) {
    if (!f.count(key)) continue;
    const bool tasks = key == "max_tasks_per_submission";
    int64_t value = 0;
    const int64_t max = tasks ? static_cast<int64_t>(kMaxArrayTasks) : kMaxWaitingJobsCap;
    if (Status s = ReadInt(f, key, path, tasks ? 1 : 0, max, value); !s.ok()) return s;
    *target = value;
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadLimitEntries(const Fields& f, std::string_view key,
                                           bool user_entries,
                                           std::map<std::string, JobLimitSettings>& out) const {
  const auto it = f.find(key);
  if (it == f.end()) return Status::Ok();
  const std::string where = Child("limits", key);
  const char* what = user_entries ? "user" : "team";
  if (!it->second.value.IsMap()) {
    return Error(it->second.At(), where,
                 std::string("expected a map of ") + what + ": settings, got " +
                     TypeName(it->second.value));
  }
  for (const auto& entry : it->second.value) {
    const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (!IsPlainName(name)) {
      return Error(entry.first, where,
                   std::string("a ") + what + " name is 1 to 64 of A-Z a-z 0-9 . _ -, not '" +
                       name + "'");
    }
    if (out.count(name)) return Error(entry.first, where, "'" + name + "' is given twice");
    const std::string path = Child(where, name);
    if (user_entries && entry.second.IsMap() && entry.second["max_waiting_jobs_per_team"]) {
      return Error(entry.second["max_waiting_jobs_per_team"], path,
                   "a user's entry has no team cap; set max_waiting_jobs_per_team under "
                   "limits.teams");
    }
    Fields settings;
    if (Status s = ReadFields(entry.second, path, user_entries ? Keys(kUserKeys) : Keys(kTeamKeys),
                              settings);
        !s.ok()) {
      return s;
    }
    if (Status s = ReadLimitSettings(settings, path, out[name]); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadLimits(const Fields& root, JobLimits& out) const {
  const auto it = root.find("limits");
  if (it == root.end()) return Status::Ok();
  Fields f;
  if (Status s = ReadFields(it->second.value, "limits", kLimitKeys, f); !s.ok()) return s;
  for (Status s : {ReadLimitSettings(f, "limits", out.everyone),
                   ReadDuration(f, "purge_job_details_after", "limits",
                                out.purge_job_details_after),
                   ReadLimitEntries(f, "teams", false, out.teams),
                   ReadLimitEntries(f, "users", true, out.users)}) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace squeeze::cluster_yaml
