#include "store/stored_job.h"

namespace squeeze {

std::optional<JobState> ParseJobState(std::string_view name) {
  for (JobState s : {JobState::kPending, JobState::kRunning, JobState::kCheckpointing,
                     JobState::kDone, JobState::kFailed, JobState::kCancelled,
                     JobState::kTimeout}) {
    if (JobStateName(s) == name) return s;
  }
  return std::nullopt;
}

bool IsFinished(JobState s) {
  return s == JobState::kDone || s == JobState::kFailed || s == JobState::kCancelled ||
         s == JobState::kTimeout;
}

}  // namespace squeeze
