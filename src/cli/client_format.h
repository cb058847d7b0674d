// How the client commands print what the API returns (docs/serve.md): the queue as a table
// like squeue's, a job as "key: value" lines, `why` as sentences, the nodes and the held-idle jobs as tables. Pure
// functions of the JSON; thread-safe. Every text in them came from some user (a job's name,
// a reason, a path): its control characters are printed escaped and invalid UTF-8 as U+FFFD
// (core/safe_text.h's EscapeControls), so no user can draw on another's terminal.
#ifndef SQUEEZE_CLI_CLIENT_FORMAT_H_
#define SQUEEZE_CLI_CLIENT_FORMAT_H_

#include <string>

#include <nlohmann/json.hpp>

namespace squeeze {

// 90 -> "1m30s", 7200 -> "2h0m", 200000 -> "2d7h"; "-" for null.
std::string ShortDuration(const nlohmann::json& seconds);
// {"jobs": [...]} or [...] -> ID NAME OWNER STATE GPUS WAIT REASON.
std::string FormatQueue(const nlohmann::json& jobs);
// squeue --start: waiting jobs with their expected start (START_TIME; N/A when none is known).
std::string FormatQueueStart(const nlohmann::json& jobs);
std::string FormatJob(const nlohmann::json& job);
// Ended jobs as sacct lists them: ID NAME OWNER STATE WAIT RUN GPU-H EXIT ENDED, and a total.
std::string FormatHistory(const nlohmann::json& jobs);
std::string FormatWhy(const nlohmann::json& why);
std::string FormatNodes(const nlohmann::json& nodes);
// {"jobs": [...], "threshold", "window_s"} -> ID NAME USER TEAM GPUS MEAN IDLE-SINCE.
std::string FormatHeldIdle(const nlohmann::json& held_idle);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_CLIENT_FORMAT_H_
