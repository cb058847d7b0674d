// `squeeze show`: one job as `scontrol show job` prints one, Key=Value grouped by what they
// say (who, state, times, resources, how it runs), then its history. Times in the local time
// zone unless UTC is asked for; durations as 1h5m. Its environment is counted, its values
// printed only when given (squeeze show ID --env). Pure; every text a user chose is printed
// with its control characters escaped (core/safe_text.h).
#ifndef SQUEEZE_CLI_JOB_SHOW_FORMAT_H_
#define SQUEEZE_CLI_JOB_SHOW_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace squeeze {

// `job`: GET /v1/jobs/ID's JSON; `env`: GET /v1/jobs/ID/env's, or null for values hidden.
std::string FormatJobShown(const nlohmann::json& job, const nlohmann::json* env = nullptr);

// An API time ("2026-11-30T08:51:53Z") as the client prints it: local ("2026-11-30T09:51:53",
// as scontrol and sacct print them) unless SetShownTimesUtc(true) (the client's --utc);
// any other text as it is, escaped. The setting is the process's (the CLI's one thread).
std::string ShownTime(const std::string& rfc3339);
void SetShownTimesUtc(bool utc);
// `text` (a reason, an event, a line of why: the daemon writes the times in them as API times)
// with each API time in it as ShownTime writes it. Escaped as ShownTime escapes.
std::string ShownTimesIn(const std::string& text);
// An API time's seconds since the epoch; nullopt for any other text.
std::optional<int64_t> ApiTimeSeconds(const std::string& rfc3339);
// An elastic job's GPU-hours at each width it ran at ({"8": 1.2, "4": 0.5}, the API's
// gpu_hours_by_width), the widest first: "8 GPUs 1.20, 4 GPUs 0.50"; "-" when empty.
std::string GpuHoursByWidth(const nlohmann::json& by_width);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_JOB_SHOW_FORMAT_H_
