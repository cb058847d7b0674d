#include "serve/admission.h"

namespace squeeze {
namespace {

std::string UserOfTeam(const Principal& who, const std::string& team) {
  return "user " + who.user + " of team " + (team.empty() ? "(none)" : team);
}

nlohmann::json SettingsJson(const JobLimitSettings& s) {
  nlohmann::json j = nlohmann::json::object();
  if (s.max_urgency) j["max_urgency"] = std::string(UrgencyName(*s.max_urgency));
  if (s.max_waiting_jobs_per_user) j["max_waiting_jobs_per_user"] = *s.max_waiting_jobs_per_user;
  if (s.max_waiting_jobs_per_team) j["max_waiting_jobs_per_team"] = *s.max_waiting_jobs_per_team;
  if (s.max_tasks_per_submission) j["max_tasks_per_submission"] = *s.max_tasks_per_submission;
  return j;
}

}  // namespace

Admission::Admission(JobLimits limits, WaitingCounts& waiting)
    : limits_(std::move(limits)), waiting_(waiting) {}

Status Admission::CheckUrgency(const Principal& who, const std::string& team, Urgency asked,
                               std::optional<Urgency> current) const {
  if (who.admin || (current && asked <= *current)) return Status::Ok();
  const AppliedLimit<Urgency> ceiling = limits_.MaxUrgency(who.user, team);
  if (asked <= ceiling.value) return Status::Ok();
  return Status::Error("urgency: '" + std::string(UrgencyName(asked)) +
                       "' is above the ceiling '" + std::string(UrgencyName(ceiling.value)) +
                       "' for " + UserOfTeam(who, team) + " (" + ceiling.origin + ")");
}

Status Admission::CheckTasks(const Principal& who, const std::string& team, int64_t tasks,
                             const std::string& array) const {
  const AppliedLimit<int64_t> cap = limits_.MaxTasksPerSubmission(who.user, team);
  if (tasks <= cap.value) return Status::Ok();
  return Status::Error("max_tasks_per_submission: the array '" + array + "' has " +
                       std::to_string(tasks) + " tasks, the cap is " +
                       std::to_string(cap.value) + " for " + UserOfTeam(who, team) + " (" +
                       cap.origin + "); nothing was stored: submit it in parts");
}

Status Admission::ReserveWaiting(const Principal& who, const std::string& team, int64_t n) {
  const AppliedLimit<int64_t> per_user = limits_.MaxWaitingJobsPerUser(who.user, team);
  const AppliedLimit<int64_t> per_team = limits_.MaxWaitingJobsPerTeam(team);
  const std::string adds = "; this submission adds " + std::to_string(n) + " (";
  const std::string after = "); nothing was stored: wait for some of them to start, or cancel some";
  return waiting_.Reserve(who.user, team, n, [&](const WaitingCounts::Counts& now) -> Status {
    if (now.user + n > per_user.value) {
      return Status::Error("max_waiting_jobs_per_user: " + who.user + " has " +
                           std::to_string(now.user) + " waiting jobs, the cap is " +
                           std::to_string(per_user.value) + adds + per_user.origin + after);
    }
    if (now.team + n > per_team.value) {
      return Status::Error("max_waiting_jobs_per_team: team " + team + " has " +
                           std::to_string(now.team) + " waiting jobs, the cap is " +
                           std::to_string(per_team.value) + adds + per_team.origin + after);
    }
    return Status::Ok();
  });
}

void Admission::Unreserve(const Principal& who, const std::string& team, int64_t n) {
  waiting_.Unreserve(who.user, team, n);
}

nlohmann::json Admission::Json(const Principal& who) const {
  const JobLimitSettings& e = limits_.everyone;
  const WaitingCounts::Counts now = waiting_.Of(who.user, who.team);
  nlohmann::json j = {
      {"source", limits_.source.empty() ? nlohmann::json() : nlohmann::json(limits_.source)},
      {"max_urgency", std::string(UrgencyName(e.max_urgency.value_or(kDefaultMaxUrgency)))},
      {"max_waiting_jobs_per_user",
       e.max_waiting_jobs_per_user.value_or(kDefaultMaxWaitingJobsPerUser)},
      {"max_waiting_jobs_per_team",
       e.max_waiting_jobs_per_team.value_or(kDefaultMaxWaitingJobsPerTeam)},
      {"max_tasks_per_submission",
       e.max_tasks_per_submission.value_or(kDefaultMaxTasksPerSubmission)},
      {"purge_job_details_after_s", WholeSeconds(limits_.purge_job_details_after)},
      {"yours",
       {{"user", who.user},
        {"team", who.team},
        {"admin", who.admin},
        {"max_urgency", std::string(who.admin ? UrgencyName(Urgency::kCritical)
                                              : UrgencyName(limits_.MaxUrgency(who.user, who.team)
                                                                .value))},
        {"waiting_jobs", now.user},
        {"max_waiting_jobs_per_user", limits_.MaxWaitingJobsPerUser(who.user, who.team).value},
        {"team_waiting_jobs", now.team},
        {"max_waiting_jobs_per_team", limits_.MaxWaitingJobsPerTeam(who.team).value},
        {"max_tasks_per_submission", limits_.MaxTasksPerSubmission(who.user, who.team).value}}}};
  if (who.admin) {
    nlohmann::json teams = nlohmann::json::object(), users = nlohmann::json::object();
    for (const auto& [name, s] : limits_.teams) teams[name] = SettingsJson(s);
    for (const auto& [name, s] : limits_.users) users[name] = SettingsJson(s);
    j["teams"] = std::move(teams);
    j["users"] = std::move(users);
  }
  return j;
}

}  // namespace squeeze
