// Reading an inference load trace (sim/inference_load.h): the per-pod GPU duty cycle CSV
// (`value,timestamp_anon,container_ip`: utilization in percent, seconds, the pod), plain, gzipped,
// or as the first *.csv file of a .tar.gz. The containers with a sample at >= 90% of the trace's
// distinct timestamps become the series, ordered by container id. docs/simulate.md
// ("--inference-load") describes the rules. Errors name the file, line, column and value.
// Stateless; thread-safe.
#ifndef SQUEEZE_SIM_READERS_INFERENCE_LOAD_READER_H_
#define SQUEEZE_SIM_READERS_INFERENCE_LOAD_READER_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "sim/inference_load.h"

namespace squeeze {

// Reads the file at `path` (CSV, .csv.gz or .tar.gz, told by its bytes); messages and
// InferenceLoad::source name it as given.
Result<InferenceLoad> ReadInferenceLoad(const std::string& path);

// Parses the CSV text; `source_name` stands for the file in messages.
Result<InferenceLoad> ParseInferenceLoad(std::string_view text, const std::string& source_name);

// The mean load over one period, averaged over the series (each series a step function).
double MeanInferenceLoad(const InferenceLoad& load);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_INFERENCE_LOAD_READER_H_
