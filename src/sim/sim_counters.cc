#include "sim/sim_counters.h"

namespace squeeze {

void CopyCounters(const SchedulerCounters& counters, SimResult* result) {
  result->preemptions = counters.preemptions;
  result->slice_yields = counters.slice_yields;
  result->borrowed_starts = counters.borrowed_starts;
  result->defrag_moves = counters.defrag_moves;
  result->resizes = counters.resizes;
  result->shrinks = counters.shrinks;
  result->widened_starts = counters.widened_starts;
  result->region_moves = counters.region_moves;
  result->data_moved_gb = counters.data_moved_gb;
  result->data_transfer_cost = counters.data_transfer_cost;
  result->spot_starts = counters.spot_starts;
  result->spot_long_bridges = counters.spot_long_bridges;
  result->spot_long_every = counters.spot_long_every;
  result->colocated_starts = counters.colocated_starts;
  result->reclaims = counters.reclaims;
  result->inference_evictions = counters.inference_evictions;
  result->returned_home = counters.returned_home;
  result->hardware_moves = counters.hardware_moves;
  result->multi_node_starts = counters.multi_node_starts;
  result->one_block_starts = counters.one_block_starts;
  result->cycles = counters.cycles;
}

void ChargePools(const ClusterState& cluster, const Job& job, Time run_start, Time end,
                 std::vector<double>* pool_gpu_s) {
  const double held = ToSeconds(end - run_start);  // seconds
  for (const NodeShare& share : job.placement.shares) {
    const int pool = cluster.node(share.node).pool;
    (*pool_gpu_s)[pool] +=
        held * static_cast<double>(share.gpus.size()) * share.milli_per_gpu / kMilliPerGpu;
  }
}

void RecordWidths(const Job& job, JobRecord* record) {
  record->elastic = job.spec.elastic.enabled();
  if (!record->elastic) return;
  record->gpus = job.spec.elastic.Reference();
  record->resizes = job.resizes;
  record->time_at_width = job.time_at_width;
}

}  // namespace squeeze
