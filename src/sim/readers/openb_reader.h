// Readers of Alibaba's openb traces (shared/traces/openb, README-alibaba.md): the node lists
// become a ClusterSpec, the pod lists a Trace. Columns may come in any order and any case.
// Every error names the file and line, and for a bad cell the column and the value. Stateless;
// thread-safe.
#ifndef SQUEEZE_SIM_READERS_OPENB_READER_H_
#define SQUEEZE_SIM_READERS_OPENB_READER_H_

#include <string>
#include <string_view>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

// openb_node_list_*.csv (sn,cpu_milli,memory_mib,gpu,model, all required) as one pool named
// `pool_name` with one node per row, in file order: name = sn, gpu_model = model, gpus = gpu,
// cpu_milli, memory_mib. A row with gpu 0 is a CPU-only node (gpu_model "none", whatever the
// model cell says); a row with GPUs needs a model. Any bad row is an error.
Result<ClusterSpec> ReadOpenbNodes(const std::string& path,
                                   const std::string& pool_name = "openb");
Result<ClusterSpec> ParseOpenbNodes(std::string_view text, const std::string& source,
                                    const std::string& pool_name = "openb");

// openb_pod_list_*.csv as jobs in FILE order (the lists are not all sorted by creation time;
// Trace::format is "openb-pods"). Required: name,cpu_milli,memory_mib,num_gpu,gpu_milli.
// Optional (the multigpu lists have none of them): gpu_spec, qos, pod_phase, creation_time,
// deletion_time, scheduled_time. A job's id is its data row's index from 0 (skipped rows
// counted), name = name, gpus = num_gpu, gpu_milli = gpu_milli (1..1000; a fraction only with
// num_gpu 1) when num_gpu > 0, cpu_milli, memory_mib, gpu_models = gpu_spec split on '|'
// (empty or "nan" = any), submit_time = creation_time (0 without the column), duration =
// max(1, deletion_time - scheduled_time) when both cells hold a time, else 1 (an empty cell
// is no time: a pending pod was never scheduled). qos and pod_phase are not read.
Result<Trace> ReadOpenbPods(const std::string& path, const ReadOptions& options);
Result<Trace> ParseOpenbPods(std::string_view text, const std::string& source,
                             const ReadOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_OPENB_READER_H_
