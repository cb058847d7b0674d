// LiveQueue and capacity that can be taken away: spot nodes their provider reclaims (a notice
// through the API), colocated GPUs whose inference load rises (telemetry through the API, which
// also carries every GPU's utilization for held-but-idle runs), and
// what a run placed on such capacity is told in its environment.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "config/job_values.h"
#include "core/duration.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

std::string Number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

int LiveQueue::NodeIndex(const std::string& name) const {
  const auto& nodes = scheduler_->cluster().spec().nodes;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].name == name) return static_cast<int>(n);
  }
  return -1;
}

ApiResult LiveQueue::Reclaim(const std::string& name, std::optional<Time> warning, Time now) {
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    const int node = NodeIndex(name);
    if (node < 0) return ApiResult::Fail(404, "no node '" + name + "'");
    const ClusterState& cs = scheduler_->cluster();
    const PoolSpec& pool = cs.spec().pools[cs.node(node).pool];
    if (pool.kind != PoolKind::kSpot) {
      return ApiResult::Fail(400, "node " + name + " is in pool " + pool.name + " (kind " +
                                      std::string(PoolKindName(pool.kind)) +
                                      "); only nodes of spot pools are reclaimed");
    }
    if (auto it = reclaimed_.find(node); it != reclaimed_.end()) {
      return ApiResult::Fail(409, "node " + name + " is already reclaimed (since " +
                                      FormatDateTime(it->second.at) + ")");
    }
    const Time w = warning.value_or(pool.spot.warning);
    if (Status s = scheduler_->Reclaimed(node, now, w); !s.ok()) {
      return ApiResult::Fail(400, s.message());
    }
    reclaimed_[node] = {now, now + w};
    reclaim_log_.push_back({node, now, now + w, std::nullopt});
    if (reclaim_log_.size() > kReclaimLogSize) reclaim_log_.pop_front();
    // The node event's text: when it must be left, in whole seconds (as the store keeps times).
    Record([now, name, until = std::to_string(WholeSeconds(now + w))](JobStore& s) {
      return s.AppendNodeEvent(now, name, "reclaim", until);
    });
    nlohmann::json jobs = nlohmann::json::array();
    for (JobId id : scheduler_->JobsOnNode(node)) jobs.push_back(id);
    Log("node " + name + " is reclaimed: taken back in " + FormatDuration(w) + " (at " +
        FormatDateTime(now + w) + "); its jobs leave: " + jobs.dump());
    return ApiResult::Ok({{"node", name},
                          {"state", "reclaimed"},
                          {"warning_s", WholeSeconds(w)},
                          {"leave_by", FormatDateTime(now + w)},
                          {"jobs", jobs}});
  });
}

ApiResult LiveQueue::Return(const std::string& name, Time now) {
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    const int node = NodeIndex(name);
    if (node < 0) return ApiResult::Fail(404, "no node '" + name + "'");
    if (!reclaimed_.count(node)) return ApiResult::Fail(409, "node " + name + " is not reclaimed");
    if (Status s = scheduler_->Returned(node, now); !s.ok()) {
      return ApiResult::Fail(400, s.message());
    }
    reclaimed_.erase(node);
    for (auto r = reclaim_log_.rbegin(); r != reclaim_log_.rend(); ++r) {
      if (r->node != node) continue;
      if (!r->returned_at) r->returned_at = now;
      break;
    }
    Record([now, name](JobStore& s) { return s.AppendNodeEvent(now, name, "return", ""); });
    Log("node " + name + " is back and takes jobs again");
    return ApiResult::Ok({{"node", name}, {"state", "available"}});
  });
}

ApiResult LiveQueue::ApplyTelemetry(const std::vector<GpuTelemetry>& gpus, Time at, Time now) {
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    const ClusterState& cs = scheduler_->cluster();
    std::vector<int> nodes;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const GpuTelemetry& r = gpus[i];
      const std::string at_entry = "gpus[" + std::to_string(i) + "].";
      const int node = NodeIndex(r.node);
      if (node < 0) return ApiResult::Fail(400, at_entry + "node: no node '" + r.node + "'");
      const PoolSpec& pool = cs.spec().pools[cs.node(node).pool];
      if (r.inference_load && pool.kind != PoolKind::kColocated) {
        return ApiResult::Fail(400, at_entry + "node: node " + r.node + " is in pool " +
                                        pool.name + " (kind " +
                                        std::string(PoolKindName(pool.kind)) +
                                        "), not a colocated pool; inference_load is only for "
                                        "colocated GPUs");
      }
      if (r.gpu >= cs.node(node).gpus) {
        return ApiResult::Fail(400, at_entry + "gpu: node " + r.node + " has no GPU " +
                                        std::to_string(r.gpu) + " (it has " +
                                        std::to_string(cs.node(node).gpus) + ")");
      }
      nodes.push_back(node);
    }
    int closed = 0, loads = 0, utilizations = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const GpuTelemetry& r = gpus[i];
      if (r.utilization) {
        held_idle_.Record(nodes[i], r.gpu, at, *r.utilization);
        ++utilizations;
      }
      if (!r.inference_load) continue;
      ++loads;
      const bool was_open = !scheduler_->GpuClosed(nodes[i], r.gpu);
      if (Status s = scheduler_->SetInferenceLoad(nodes[i], r.gpu, *r.inference_load, now);
          !s.ok()) {
        Log("inference load of " + r.node + " GPU " + std::to_string(r.gpu) + ": " +
            s.message());  // checked above; should not happen
        continue;
      }
      const bool open = !scheduler_->GpuClosed(nodes[i], r.gpu);
      if (was_open != open) {
        Log("GPU " + std::to_string(r.gpu) + " of node " + r.node + " (inference " +
            Number(*r.inference_load) + "): " + (open ? "takes training" : "closed to training"));
      }
      closed += open ? 0 : 1;
    }
    if (utilizations > 0) UpdateHeldIdle(now);
    return ApiResult::Ok({{"applied", gpus.size()},
                          {"inference_loads", loads},
                          {"utilizations", utilizations},
                          {"closed", closed}});
  });
}

void LiveQueue::AddPlacementEnv(const Decision& d, const std::vector<int>& cuda_gpus,
                                JobRequest& request) const {
  if (d.checkpoint_interval > 0) {
    // In whole seconds; at least 1, so that a sub-second interval never reads as 0.
    request.env["SQUEEZE_CHECKPOINT_INTERVAL"] =
        std::to_string(std::max<int64_t>(1, WholeSeconds(d.checkpoint_interval)));
  }
  if (d.placement.empty()) return;
  const ClusterSpec& spec = scheduler_->cluster().spec();
  const int node = d.placement.shares.front().node;
  const PoolSpec& pool = spec.pools[scheduler_->cluster().node(node).pool];
  if (pool.kind != PoolKind::kColocated) return;
  // The share of each GPU training may take, enforced by CUDA MPS when inference and the job
  // are both its clients (docs/serve.md, "Spot and colocated pools").
  const double cap = pool.colocation.cap;
  request.env["SQUEEZE_GPU_SHARE"] = Number(cap);
  request.env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = std::to_string(std::lround(cap * 100));
  if (const int64_t mib = spec.nodes[node].gpu_memory_mib; mib > 0) {
    const auto limit = static_cast<int64_t>(std::floor(cap * static_cast<double>(mib)));
    std::string pinned;
    for (size_t i = 0; i < std::max<size_t>(1, cuda_gpus.size()); ++i) {
      pinned += (pinned.empty() ? "" : ",") + std::to_string(i) + "=" + std::to_string(limit) + "M";
    }
    request.env["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] = pinned;
  }
}

void LiveQueue::RestoreReclaims(Time now) {
  auto events = store_.NodeEvents(4 * static_cast<int64_t>(kReclaimLogSize));
  if (!events.ok()) {
    Log("the spot reclaims are not read back: " + events.status().message());
    return;
  }
  for (const NodeEvent& e : *events) {
    const int node = NodeIndex(e.node);
    if (node < 0) continue;  // not in the cluster file any more
    if (e.kind == "reclaim") {
      Time leave_by = e.at;
      int64_t leave_by_s = 0;  // the text Reclaim stored: whole seconds
      if (std::from_chars(e.text.data(), e.text.data() + e.text.size(), leave_by_s).ec ==
          std::errc()) {
        leave_by = Seconds(leave_by_s);
      }
      reclaim_log_.push_back({node, e.at, leave_by, std::nullopt});
      if (reclaim_log_.size() > kReclaimLogSize) reclaim_log_.pop_front();
      reclaimed_[node] = {e.at, leave_by};
    } else if (e.kind == "return") {
      for (auto r = reclaim_log_.rbegin(); r != reclaim_log_.rend(); ++r) {
        if (r->node != node) continue;
        if (!r->returned_at) r->returned_at = e.at;
        break;
      }
      reclaimed_.erase(node);
    }
  }
  // A node still reclaimed when the daemon stopped stays so: it takes no job, and what runs
  // there leaves by the time it was told (at once when that has passed).
  for (auto it = reclaimed_.begin(); it != reclaimed_.end();) {
    const std::string& name = scheduler_->cluster().spec().nodes[it->first].name;
    if (Status s = scheduler_->Reclaimed(it->first, now, std::max<Time>(0, it->second.leave_by - now));
        !s.ok()) {
      Log("node " + name + " was reclaimed before the restart, but: " + s.message());
      it = reclaimed_.erase(it);
      continue;
    }
    Log("node " + name + " is still reclaimed (since " + FormatDateTime(it->second.at) +
        "), as before the restart");
    ++it;
  }
}

}  // namespace squeeze
