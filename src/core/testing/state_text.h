// The engine state as text, for tests that check an operation left it exactly as it was (a
// discarded Statement) or that two runs reached the same state: every job and index, the
// free capacity of every node and group, holds, moves and counters. Stamps and versions
// (numbers that only say "changed") are left out. Test-only and header-only.
#ifndef SQUEEZE_CORE_TESTING_STATE_TEXT_H_
#define SQUEEZE_CORE_TESTING_STATE_TEXT_H_

#include <map>
#include <sstream>
#include <string>

#include "core/engine_state.h"

namespace squeeze::testing {

inline void PlacementText(std::ostream& o, const Placement& p) {
  o << "[";
  for (const NodeShare& s : p.shares) {
    o << " n" << s.node << ":";
    for (int g : s.gpus) o << g << ",";
    o << "x" << s.milli_per_gpu << "/c" << s.cpu_milli << "/m" << s.memory_mib;
  }
  o << " ]";
}

inline void JobText(std::ostream& o, const Job& j) {
  o << "job " << j.spec.id << " state " << static_cast<int>(j.state) << " work " << j.work_done
    << " att " << j.attained_gpu_s << " first " << j.first_start << " run " << j.run_start
    << " ovh " << j.run_overhead << " speed " << j.run_speed_milli << " ckpt "
    << j.run_checkpoint_interval << " leave " << j.must_leave_by << " slice " << j.slice_end
    << " bridging " << j.bridging << " bridged " << j.bridged << " window "
    << j.leave_window_at << " idle " << j.held_idle << " queued " << j.queued_since << " wait "
    << j.total_wait << " pre " << j.preemptions << " moves " << j.moves << " slices "
    << j.slices << " starts " << j.starts << " minrun " << j.min_runtime_until << " borrowed "
    << j.borrowed << " boosted " << j.boosted << " boost_at " << j.boost_at << " back "
    << j.back_at << " home " << j.home_pool << " saved " << j.saved_at_stop << " data "
    << j.data_regions << " last_ckpt " << j.last_checkpoint << " move_times";
  for (Time t : j.move_times) o << " " << t;
  o << " at ";
  PlacementText(o, j.placement);
  o << "\n";
}

// Claims, moves, pipelines and holds: room kept for jobs that will start on it.
inline void HeldRoomText(std::ostream& o, const EngineState& s) {
  o << "\nclaims";
  for (JobId id : s.claims) o << " " << id;
  o << "\nmoves";
  for (const auto& [id, move] : s.moves) {
    o << " " << id << (move.borrowed ? "b" : "") << "->";
    PlacementText(o, move.to);
  }
  o << "\npipelined";
  for (const auto& [id, p] : s.pipelined) {
    o << " " << id << (p.borrowed ? "b" : "") << "->";
    PlacementText(o, p.to);
    o << " held ";
    PlacementText(o, p.held);
  }
  o << "\ndefrag_holds";
  for (const auto& [id, nodes] : s.defrag_holds) {
    o << " " << id << ":";
    for (int n : nodes) o << n << ",";
  }
}

inline std::string StateText(const EngineState& s) {
  std::ostringstream o;
  for (const NodeState& n : s.cluster.nodes()) {
    o << "node " << n.index << " whole " << n.whole_free << " free";
    for (int f : n.free_milli) o << " " << f;
    o << " cpu " << n.cpu_free << " mem " << n.memory_free << " pods " << n.share_pods << "/"
      << n.kgpu_pods << "\n";
  }
  for (const NodeGroup& g : s.cluster.groups()) {
    o << "group " << g.pool << "/" << g.gpu_model << " free " << g.free_milli << " whole "
      << g.whole_free << " buckets";
    for (const auto& bucket : g.by_whole_free) {
      o << " {";
      for (int n : bucket) o << n << ",";
      o << "}";
    }
    o << "\n";
  }
  o << "free " << s.cluster.FreeMilli() << "\n";
  std::map<JobId, const Job*> jobs;
  for (const auto& [id, j] : s.jobs) jobs[id] = &j;
  for (const auto& [id, j] : jobs) JobText(o, *j);
  o << "pending";
  s.pending.Walk(
      [&](const QueuePosition& p) {
        o << " " << p.entry.id << "@" << p.band << "/" << p.scope << "/" << p.entry.key;
        return PendingQueue::Visit::kNext;
      },
      nullptr);
  o << "\n";
  auto pairs = [&](const char* name, const auto& set) {
    o << name;
    for (const auto& [a, b] : set) o << " " << a << ":" << b;
    o << "\n";
  };
  pairs("slice_ends", s.slice_ends);
  pairs("estimated_ends", s.estimated_ends);
  pairs("boost_watch", s.boost_watch);
  pairs("back_watch", s.back_watch);
  pairs("awaiting_stops", s.awaiting_stops);
  pairs("stop_for", s.stop_for);
  pairs("team_running_milli", s.team_running_milli);
  o << "team_pool_gpus";
  for (const auto& [key, gpus] : s.team_pool_gpus) o << " " << key.first << "/" << key.second << ":" << gpus;
  o << "\nnode_jobs";
  for (size_t n = 0; n < s.node_jobs.size(); ++n) {
    o << " " << n << ":";
    for (JobId id : s.node_jobs[n]) o << id << ",";
  }
  HeldRoomText(o, s);
  o << "\nrunning_preemptible_by_band";
  for (int n : s.running_preemptible_by_band) o << " " << n;
  o << "\nunavailable";
  for (const auto& [node, held] : s.unavailable) {
    o << " " << node << ":";
    PlacementText(o, held);
  }
  o << "\nclosed";
  for (const auto& [node, bits] : s.closed_gpus) o << " " << node << ":" << bits;
  for (const auto& [node, held] : s.closed_hold) {
    o << " hold " << node << ":";
    PlacementText(o, held);
  }
  const SchedulerCounters& c = s.counters;
  o << "\ncounters " << c.submitted << " " << c.starts << " " << c.preemptions << " "
    << c.slice_yields << " " << c.borrowed_starts << " " << c.defrag_moves << " "
    << c.region_moves << " " << c.data_moved_gb << " " << c.data_transfer_cost << " "
    << c.spot_starts << " " << c.spot_long_bridges << " " << c.spot_long_every << " "
    << c.colocated_starts << " " << c.reclaims << " " << c.inference_evictions << " "
    << c.returned_home << " " << c.cycles << "\n";
  return o.str();
}

}  // namespace squeeze::testing

#endif  // SQUEEZE_CORE_TESTING_STATE_TEXT_H_
