#include <string>

#include "slurm/job_text.h"
#include "slurm/slurm_output.h"

namespace squeeze {

Result<SlurmJob> ParseScontrolJob(std::string_view text) {
  const std::string source = "scontrol show job";
  const slurm_text::KeyValues pairs = slurm_text::SplitKeyValues(text);
  int records = 0;
  std::string id;
  for (const auto& [key, value] : pairs) {
    if (key != "JobId") continue;
    ++records;
    id = value;
  }
  if (records > 1) {
    return Status::Error(source + ": " + std::to_string(records) +
                         " JobId= records where one job was asked for");
  }
  if (records == 0) {
    std::string shown(text.substr(0, text.find('\n')));
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    return Status::Error(source + ": JobId is missing in '" + shown + "'");
  }
  Result<SlurmJob> job = slurm_text::JobFromKeyValues(pairs);
  if (!job.ok()) return job.status().WithContext(source + " " + id);
  return job;
}

}  // namespace squeeze
