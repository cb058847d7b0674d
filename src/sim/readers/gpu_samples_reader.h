// Reading GPU utilization samples: a CSV with the header `time,node,gpu,utilization` and an
// optional `memory_used_mib` column, one row per sample. time is unix seconds or ISO-8601 UTC
// ("2026-11-02T01:00:00Z"); utilization is a fraction 0..1 or a percent ("35%", "35 %").
// Nothing is accepted silently: an error names the file, the line, the column and the value.
// Stateless; thread-safe.
#ifndef SQUEEZE_SIM_READERS_GPU_SAMPLES_READER_H_
#define SQUEEZE_SIM_READERS_GPU_SAMPLES_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/idle/gpu_sample.h"
#include "core/status.h"

namespace squeeze {

// Parses the CSV text; `source_name` stands for the file in messages.
Result<std::vector<GpuSample>> ParseGpuSamples(std::string_view text,
                                               const std::string& source_name);
// Reads the file at `path`.
Result<std::vector<GpuSample>> ReadGpuSamples(const std::string& path);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_GPU_SAMPLES_READER_H_
