// Who may ask for what (config/job_limits.h), applied to the API's submissions and updates: the
// urgency ceiling (admins are not capped), the cap on tasks per submission, and the caps on
// waiting jobs per user and per team, reserved in WaitingCounts before the jobs are stored so
// that a refused submission stores nothing. A refusal is an error naming the limit, its value,
// what was asked or counted, and where an admin sets it (the API answers 403). Thread-safe:
// the limits are read-only; the counts are WaitingCounts'.
#ifndef SQUEEZE_SERVE_ADMISSION_H_
#define SQUEEZE_SERVE_ADMISSION_H_

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "config/job_limits.h"
#include "core/status.h"
#include "core/types.h"
#include "serve/access.h"
#include "serve/waiting_counts.h"

namespace squeeze {

class Admission {
 public:
  // `waiting` (the live queue's) outlives this.
  Admission(JobLimits limits, WaitingCounts& waiting);

  const JobLimits& limits() const { return limits_; }
  // `asked` for a job of `team`: refused above the ceiling of `who` in `team`, unless `who` is
  // an admin or (an update) it does not raise the job's `current` urgency.
  Status CheckUrgency(const Principal& who, const std::string& team, Urgency asked,
                      std::optional<Urgency> current = std::nullopt) const;
  // A submission of `tasks` jobs (an array's size; `array` as written, for the message).
  Status CheckTasks(const Principal& who, const std::string& team, int64_t tasks,
                    const std::string& array) const;
  // Counts `n` more waiting jobs of `who` in `team`, or says which cap they would pass.
  Status ReserveWaiting(const Principal& who, const std::string& team, int64_t n);
  // A reservation whose jobs were not stored.
  void Unreserve(const Principal& who, const std::string& team, int64_t n);
  // For GET /v1/nodes: the top-level settings, what applies to `who` (in their team) with their
  // counts now, and for an admin the teams' and users' entries.
  nlohmann::json Json(const Principal& who) const;

 private:
  const JobLimits limits_;
  WaitingCounts& waiting_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_ADMISSION_H_
