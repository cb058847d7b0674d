// Loads a cluster file — the pools and nodes a simulation or the server runs on — into a
// validated ClusterSpec. Two forms: YAML (every field) and CSV (one row per pool, for quick
// set-ups). Errors are values whose message names the file, the line, the field and the value.
// Stateless free functions; safe to call from any thread.
//
// YAML form (docs/cluster-file.md is the full reference):
//
//   pools:
//     - name: a100-owned
//       kind: owned            # owned | colocated | spot | reserved | on-demand (default owned)
//       region: us-east        # default "default"
//       price_per_gpu_hour: 0  # default 0
//       backend: local         # default local
//       team_quota_gpus: {vision: 16, nlp: 8}   # optional
//       nodes:
//         - name: a100-0       # one node
//           count: 1           # optional with name; must then be 1
//           gpus: 8            # default 8
//           gpu_model: A100    # default "gpu"
//           gpu_memory_mib: 81920
//           cpu_milli: 128000  # 0 (the default) = not tracked
//           memory_mib: 1048576  # 0 (the default) = not tracked
//           labels: {rack: r1}
//         - count: 4           # a group of identical nodes named a100-0 .. a100-3;
//           name_prefix: a100- # name_prefix defaults to "<pool name>-"
//   limits: {max_urgency: normal}  # optional: who may ask for what on squeeze serve
//                                  # (config/job_limits.h; checked here, read by LoadJobLimits)
//
// Unknown keys are errors (they are usually typos). A node entry has either `name` or `count`
// (with an optional `name_prefix`), never both a name and a count other than 1.
//
// CSV form: a header `pool,nodes,gpus_per_node` or `pool,nodes,gpus_per_node,gpu_model`, then
// one row per pool of kind owned; `nodes` nodes named `<pool>-0` .. `<pool>-<nodes-1>`, each with
// `gpus_per_node` GPUs of model `gpu_model` (default "gpu"). Blank lines are skipped; spaces
// around fields, CRLF line ends and a UTF-8 byte-order mark are accepted.
#ifndef SQUEEZE_CONFIG_CLUSTER_FILE_H_
#define SQUEEZE_CONFIG_CLUSTER_FILE_H_

#include <string>
#include <string_view>

#include "core/cluster_spec.h"
#include "core/status.h"

namespace squeeze {

// Reads the file at `path`: CSV if its name ends in ".csv" (any case) or its first line is a
// CSV header starting with "pool,", YAML otherwise. Error messages start with `path`.
Result<ClusterSpec> LoadClusterFile(const std::string& path);

// Whether the file at `path` holding `text` is read as CSV (else YAML).
bool IsCsvClusterFile(const std::string& path, std::string_view text);

// Parse text already in memory; `source` (a file name, or any label) starts every error message.
Result<ClusterSpec> ParseClusterYaml(std::string_view text, const std::string& source);
Result<ClusterSpec> ParseClusterCsv(std::string_view text, const std::string& source);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_CLUSTER_FILE_H_
