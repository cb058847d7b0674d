// The key=value text Slurm prints for a job (`scontrol show job`, jobcomp/filetxt lines), read
// into a SlurmJob. Internal to src/slurm; pure functions (times read through mktime, which
// follows this process's TZ), thread-safe.
#ifndef SQUEEZE_SLURM_JOB_TEXT_H_
#define SQUEEZE_SLURM_JOB_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "slurm/slurm_output.h"

namespace squeeze::slurm_text {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// The pairs of `text` in order. Pairs are separated by spaces or newlines; a value runs to the
// next word that looks like a Slurm KEY= (a capital, then letters, digits, '_', ':', '/'), so
// "TRES=cpu=1,node=1", "Reason=Not responding" and "Comment=from epoch=3" stay whole; "(null)"
// reads as "". Words before the first pair are dropped.
KeyValues SplitKeyValues(std::string_view text);

// The job the pairs describe: JobId and JobState are required; the other fields are read when
// present (JobName or Name, Reason, Partition, NodeList, Restarts, Requeue, ExitCode, SubmitTime,
// StartTime, EndTime, Comment, WorkDir, GRES). Errors name the key and the value.
Result<SlurmJob> JobFromKeyValues(const KeyValues& pairs);

// "3:0" -> 3, "0:9" -> 137 (128 + signal).
Result<int> ParseExitCode(std::string_view text);
// "2026-11-30T09:44:07" in local time -> epoch seconds; "Unknown", "None", "N/A", "" -> none.
Result<std::optional<int64_t>> ParseTime(std::string_view text);

}  // namespace squeeze::slurm_text

#endif  // SQUEEZE_SLURM_JOB_TEXT_H_
