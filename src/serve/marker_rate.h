// The throughput a job reports in its checkpoint marker (the Python helper's JSON line,
// docs/checkpoint-protocol.md): what the scheduler learns an elastic job's scaling from
// (Scheduler::ReportRate). The marker is the job's own text, at most 4096 bytes as the
// supervisor reads it: parsed here with no more trust than that. Pure.
#ifndef SQUEEZE_SERVE_MARKER_RATE_H_
#define SQUEEZE_SERVE_MARKER_RATE_H_

#include <optional>
#include <string_view>

namespace squeeze {

// `samples_per_s` of a marker that is a JSON object (else `steps_per_s`): a finite number
// above 0 and at most 1e12; nullopt for anything else (a bash job's step number, garbage).
std::optional<double> MarkerRate(std::string_view marker);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_MARKER_RATE_H_
