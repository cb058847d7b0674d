#include <string>
#include <vector>

#include "slurm/job_text.h"
#include "slurm/slurm_output.h"

namespace squeeze {

Result<std::vector<SlurmJob>> ParseJobcomp(std::string_view text) {
  std::vector<SlurmJob> jobs;
  int line_number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Result<SlurmJob> job = slurm_text::JobFromKeyValues(slurm_text::SplitKeyValues(line));
    if (!job.ok()) {
      return job.status().WithContext("jobcomp: line " + std::to_string(line_number));
    }
    jobs.push_back(std::move(*job));
  }
  return jobs;
}

}  // namespace squeeze
