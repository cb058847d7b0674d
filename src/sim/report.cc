#include "sim/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/xml_escape.h"

namespace squeeze {

std::string ShortDuration(double seconds) {
  if (std::isnan(seconds)) return "-";
  if (seconds < 0) return "-" + ShortDuration(-seconds);
  if (seconds == 0) return "0s";
  if (seconds < 9.95) return fmt::format("{:.1f}s", seconds);
  if (seconds < 59.5) return fmt::format("{:.0f}s", seconds);
  // Two units, the smaller rounded: 24m57s, 4h36m, 1d23h.
  auto two = [seconds](double unit, int64_t per, char big, char small) {
    const int64_t n = std::llround(seconds / unit);  // in the smaller unit
    return fmt::format("{}{}{:02}{}", n / per, big, n % per, small);
  };
  if (std::llround(seconds) < 3600) return two(1, 60, 'm', 's');
  if (std::llround(seconds / 60) < 24 * 60) return two(60, 60, 'h', 'm');
  return two(3600, 24, 'd', 'h');
}

namespace {

std::string Human(double seconds, bool in_seconds) {
  if (!in_seconds) return ShortDuration(seconds);
  if (seconds < 100) return fmt::format("{:.1f}s", seconds);
  return fmt::format("{:.0f}", seconds);
}

// The lines under the table: what each policy did beyond its figures (deadlines, defrag, cost,
// spot, inference GPUs, regions).
// Where runs went: moved home, moved to faster cards, inside one block.
void PlacementNotes(const Summary& s, std::string& out) {
  if (s.returned_home > 0) {
    out += fmt::format("{}: {} runs moved home from spot or inference GPUs\n", s.policy,
                       s.returned_home);
  }
  if (s.hardware_moves > 0) {
    out += fmt::format("{}: {} runs moved to faster cards\n", s.policy, s.hardware_moves);
  }
  if (s.multi_node_starts > 0) {
    out += fmt::format("{}: {} of {} runs on several nodes inside one block ({:.1f}%)\n",
                       s.policy, s.one_block_starts, s.multi_node_starts,
                       100.0 * static_cast<double>(s.one_block_starts) /
                           static_cast<double>(s.multi_node_starts));
  }
}

std::string FormatNotes(const std::vector<PolicyRun>& runs) {
  std::string out;
  for (const auto& r : runs) {
    const Summary& s = r.summary;
    if (s.timed_out > 0) {
      out += fmt::format("{}: {} jobs stopped at their time limit\n", s.policy, s.timed_out);
    }
    if (s.deadlines > 0 || s.rejected > 0) {
      out += fmt::format("{}: {} of {} deadlines missed, {} jobs rejected\n", s.policy,
                         s.deadline_misses, s.deadlines, s.rejected);
    }
    if (s.elastic_jobs > 0) {
      std::string widths;
      for (const auto& [w, h] : s.elastic_gpu_hours_by_width) {
        widths += fmt::format("{}{}: {:.0f}", widths.empty() ? "" : ", ", w, h);
      }
      out += fmt::format("{}: {} elastic jobs, {} resizes ({:.2f} per elastic job; {} shrunk, {} "
                         "grown), {} started wider than their minimum; GPU-hours by width: {}\n",
                         s.policy, s.elastic_jobs, s.resizes,
                         static_cast<double>(s.resizes) / static_cast<double>(s.elastic_jobs),
                         s.shrinks, s.resizes - s.shrinks, s.widened_starts, widths);
    }
    if (s.defrag_moves > 0) {
      out += fmt::format("{}: {} jobs moved to consolidate free GPUs (defrag)\n", s.policy,
                         s.defrag_moves);
    }
    if (s.cost > 0) {
      std::string pools;
      for (const auto& [pool, u] : s.pool_use) {
        if (u.cost > 0) pools += fmt::format("{}{} {:.2f}", pools.empty() ? "" : ", ", pool, u.cost);
      }
      out += fmt::format("{}: GPU cost {:.2f} ({})\n", s.policy, s.cost, pools);
    }
    if (s.spot_starts > 0 || s.reclaims > 0) {
      out += fmt::format("{}: {} starts on spot, {} reclaims\n", s.policy, s.spot_starts,
                         s.reclaims);
      if (s.spot_long_bridges > 0 || s.spot_long_every > 0) {
        out += fmt::format("{}: long jobs on spot: {} bridging their wait at home, {} checkpointing "
                           "as the long-job rule asks\n",
                           s.policy, s.spot_long_bridges, s.spot_long_every);
      }
    }
    if (s.colocated_starts > 0 || s.inference_evictions > 0) {
      out += fmt::format("{}: {} starts on inference GPUs, {} evictions, {} overran evict_within\n",
                         s.policy, s.colocated_starts, s.inference_evictions,
                         s.inference_violations);
    }
    PlacementNotes(s, out);
    if (s.region_moves > 0) {
      out += fmt::format("{}: {} starts in another region, {:.1f} GB of data copied, cost {:.2f}\n",
                         s.policy, s.region_moves, s.data_moved_gb, s.data_transfer_cost);
    }
  }
  return out;
}

// Queue and completion time per pool, when there are several.
std::string FormatPools(const std::vector<PolicyRun>& runs, bool in_seconds) {
  std::string out;
  std::set<std::string> pools;
  for (const auto& r : runs) {
    for (const auto& [pool, ps] : r.summary.per_pool) pools.insert(pool);
  }
  if (pools.size() > 1) {
    out += fmt::format("\n{:<10} {:>7}", "pool", "jobs");
    for (const auto& r : runs) out += fmt::format(" {:>21}", r.summary.policy + " queue/jct");
    out += "\n";
    for (const auto& pool : pools) {
      int64_t jobs = 0;
      std::string cells;
      for (const auto& r : runs) {
        auto it = r.summary.per_pool.find(pool);
        if (it == r.summary.per_pool.end()) {
          cells += fmt::format(" {:>21}", "-");
          continue;
        }
        jobs = it->second.jobs;
        cells += fmt::format(" {:>21}", Human(it->second.avg_queue_s, in_seconds) + " / " +
                                            Human(it->second.avg_jct_s, in_seconds));
      }
      out += fmt::format("{:<10} {:>7}{}\n", pool, jobs, cells);
    }
  }
  return out;
}

}  // namespace

std::string FormatTable(const std::vector<PolicyRun>& runs, bool in_seconds) {
  size_t width = 10;
  for (const auto& r : runs) width = std::max(width, r.summary.policy.size());
  std::string out = fmt::format(
      "{:<{}} {:>7} {:>9} {:>8} {:>9} {:>9} {:>9} {:>8} {:>6} {:>8} {:>9} {:>9} {:>7}\n",
      "policy", width, "jobs", "avg_queue", "p50", "p95", "p99", "avg_jct", "slowdown", "util",
      "preempt", "lost_gpuh", "frag_gpuh", "wall_s");
  for (const auto& r : runs) {
    const Summary& s = r.summary;
    // NaN: not measured (--no-fragmentation-meter).
    const std::string frag = std::isnan(s.frag_blocked_gpu_hours)
                                 ? "-"
                                 : fmt::format("{:.1f}", s.frag_blocked_gpu_hours);
    auto time = [in_seconds](double seconds) {
      return in_seconds ? fmt::format("{:.0f}", seconds) : ShortDuration(seconds);
    };
    out += fmt::format(
        "{:<{}} {:>7} {:>9} {:>8} {:>9} {:>9} {:>9} {:>8.2f} {:>6.3f} {:>8} "
        "{:>9.1f} {:>9} {:>7.2f}\n",
        s.policy, width, s.jobs, time(s.avg_queue_s), time(s.p50_queue_s), time(s.p95_queue_s),
        time(s.p99_queue_s), time(s.avg_jct_s), s.avg_bounded_slowdown, s.gpu_utilization,
        s.preemptions, s.lost_gpu_hours, frag, s.wall_s);
  }
  out += FormatNotes(runs);
  out += FormatPools(runs, in_seconds);
  return out;
}

namespace {

// Where runs went (docs/simulate.md): moved home, to faster cards, inside one block.
void PlacementJson(const Summary& s, nlohmann::ordered_json& j) {
  j["returned_home"] = s.returned_home;
  j["hardware_moves"] = s.hardware_moves;
  j["multi_node_starts"] = s.multi_node_starts;
  j["one_block_starts"] = s.one_block_starts;
}

// The elastic jobs' figures (docs/simulate.md).
void ElasticJson(const Summary& s, nlohmann::ordered_json& j) {
  j["elastic_jobs"] = s.elastic_jobs;
  j["resizes"] = s.resizes;
  j["shrinks"] = s.shrinks;
  j["widened_starts"] = s.widened_starts;
  nlohmann::ordered_json by_width = nlohmann::ordered_json::object();
  for (const auto& [w, h] : s.elastic_gpu_hours_by_width) by_width[std::to_string(w)] = h;
  j["elastic_gpu_hours_by_width"] = std::move(by_width);
}

// One policy's figures, in the order docs/simulate.md lists them.
nlohmann::ordered_json ResultJson(const Summary& s) {
  nlohmann::ordered_json j;
  j["policy"] = s.policy;
  j["jobs"] = s.jobs;
  j["avg_queue_s"] = s.avg_queue_s;
  j["p50_queue_s"] = s.p50_queue_s;
  j["p95_queue_s"] = s.p95_queue_s;
  j["p99_queue_s"] = s.p99_queue_s;
  j["avg_jct_s"] = s.avg_jct_s;
  j["avg_bounded_slowdown"] = s.avg_bounded_slowdown;
  j["gpu_utilization"] = s.gpu_utilization;
  j["preemptions"] = s.preemptions;
  j["slice_yields"] = s.slice_yields;
  j["borrowed_starts"] = s.borrowed_starts;
  j["defrag_moves"] = s.defrag_moves;
  j["region_moves"] = s.region_moves;
  j["data_moved_gb"] = s.data_moved_gb;
  j["data_transfer_cost"] = s.data_transfer_cost;
  j["spot_starts"] = s.spot_starts;
  j["spot_long_bridges"] = s.spot_long_bridges;
  j["spot_long_every"] = s.spot_long_every;
  j["colocated_starts"] = s.colocated_starts;
  j["reclaims"] = s.reclaims;
  j["inference_evictions"] = s.inference_evictions;
  j["inference_violations"] = s.inference_violations;
  ElasticJson(s, j);
  PlacementJson(s, j);
  j["cost"] = s.cost;
  nlohmann::ordered_json use = nlohmann::ordered_json::object();
  for (const auto& [pool, u] : s.pool_use) {
    use[pool] = {{"gpu_hours", u.gpu_hours}, {"usage_cost", u.usage_cost},
                 {"fixed_cost", u.fixed_cost}, {"cost", u.cost}};
  }
  j["pool_use"] = std::move(use);
  j["lost_gpu_hours"] = s.lost_gpu_hours;
  j["frag_blocked_gpu_hours"] = s.frag_blocked_gpu_hours;
  nlohmann::ordered_json lengths = nlohmann::ordered_json::object();
  for (const LengthClass& l : s.by_length) {
    lengths[l.name] = {{"jobs", l.jobs}, {"avg_queue_s", l.avg_queue_s},
                       {"avg_jct_s", l.avg_jct_s}, {"lost_gpu_hours", l.lost_gpu_hours}};
  }
  j["by_length"] = std::move(lengths);
  nlohmann::ordered_json urgencies = nlohmann::ordered_json::object();
  for (const LengthClass& u : s.by_urgency) {
    urgencies[u.name] = {{"jobs", u.jobs}, {"avg_queue_s", u.avg_queue_s},
                         {"avg_jct_s", u.avg_jct_s}, {"lost_gpu_hours", u.lost_gpu_hours}};
  }
  j["by_urgency"] = std::move(urgencies);
  j["makespan_s"] = s.makespan_s;
  j["deadlines"] = s.deadlines;
  j["deadline_misses"] = s.deadline_misses;
  j["rejected"] = s.rejected;
  j["timed_out"] = s.timed_out;
  j["dependency_never_satisfied"] = s.dependency_never;
  j["most_array_tasks_running"] = s.most_array_running;
  j["wall_s"] = s.wall_s;
  nlohmann::ordered_json pools = nlohmann::ordered_json::object();
  for (const auto& [pool, ps] : s.per_pool) {
    pools[pool] = {{"jobs", ps.jobs},
                   {"avg_queue_s", ps.avg_queue_s},
                   {"avg_jct_s", ps.avg_jct_s},
                   {"frag_blocked_gpu_hours", ps.frag_blocked_gpu_hours}};
  }
  j["per_pool"] = std::move(pools);
  return j;
}

nlohmann::ordered_json ResultsJson(const std::vector<PolicyRun>& runs) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& r : runs) results.push_back(ResultJson(r.summary));
  return results;
}

}  // namespace

std::string FormatJson(const std::vector<PolicyRun>& runs, const std::string& trace,
                       const std::string& cluster) {
  nlohmann::ordered_json doc;
  doc["trace"] = trace;
  doc["cluster"] = cluster;
  doc["jobs"] = runs.empty() ? 0 : runs.front().summary.jobs;
  doc["results"] = ResultsJson(runs);
  return doc.dump(2) + "\n";
}

std::string FormatScenarioJson(const std::string& scenario, const std::string& trace,
                               const std::vector<VariantRuns>& variants) {
  nlohmann::ordered_json doc;
  doc["scenario"] = scenario;
  doc["trace"] = trace;
  doc["variants"] = nlohmann::ordered_json::array();
  for (const VariantRuns& v : variants) {
    nlohmann::ordered_json j;
    j["name"] = v.name;
    j["cluster"] = v.cluster;
    j["gpus"] = v.gpus;
    j["inference_load"] = v.inference_load.empty() ? nlohmann::ordered_json()
                                                   : nlohmann::ordered_json(v.inference_load);
    j["results"] = ResultsJson(v.runs);
    doc["variants"].push_back(std::move(j));
  }
  return doc.dump(2) + "\n";
}

std::string FormatJobsCsv(const std::vector<PolicyRun>& runs, const ClusterSpec& cluster) {
  // Runs with elastic jobs add their resizes (gpus is then the width the duration is for).
  bool elastic = false;
  for (const auto& r : runs) elastic = elastic || r.summary.elastic_jobs > 0;
  std::string out =
      "policy,job_id,pool,gpus,submit_time_s,start_time_s,end_time_s,queue_s,jct_s,duration_s,"
      "preemptions";
  out += elastic ? ",resizes\n" : "\n";
  for (const auto& r : runs) {
    for (const JobRecord& j : r.result.jobs) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}", r.summary.policy, j.id,
                         j.pool >= 0 ? cluster.pools[j.pool].name : "", j.gpus,
                         WholeSeconds(j.submit), WholeSeconds(j.first_start), WholeSeconds(j.end),
                         WholeSeconds(j.queue), WholeSeconds(j.end - j.submit),
                         WholeSeconds(j.duration), j.preemptions);
      out += elastic ? fmt::format(",{}\n", j.resizes) : "\n";
    }
  }
  return out;
}

std::string QueueCdfSvg(const std::vector<PolicyRun>& runs, const std::string& title) {
  constexpr double kW = 720, kH = 440, kLeft = 70, kRight = 160, kTop = 40, kBottom = 50;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f"};
  double max_q = 10;
  for (const auto& r : runs) {
    for (const auto& j : r.result.jobs) max_q = std::max(max_q, ToSeconds(j.queue));
  }
  const double decades = std::ceil(std::log10(max_q + 1));
  auto x_of = [&](double q) { return kLeft + pw * std::log10(q + 1) / decades; };
  auto y_of = [&](double f) { return kTop + ph * (1 - f); };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n",
      kW, kH, kLeft, XmlEscape(title));
  for (int d = 0; d <= decades; ++d) {
    const double x = x_of(std::pow(10.0, d) - 1);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>\n",
                       x, kTop, kTop + ph, kTop + ph + 16, d);
  }
  for (int i = 0; i <= 4; ++i) {
    const double y = y_of(i / 4.0);
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.2f}</text>\n",
                       kLeft, y, kLeft + pw, kLeft - 6, y + 4, i / 4.0);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">queueing delay (s, log scale)</text>\n",
                     kLeft + pw / 2, kH - 12);
  svg += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">fraction of jobs</text>\n",
                     kTop + ph / 2);
  for (size_t p = 0; p < runs.size(); ++p) {
    std::vector<Time> q;
    for (const auto& j : runs[p].result.jobs) q.push_back(j.queue);
    std::sort(q.begin(), q.end());
    const char* color = kColors[p % 8];
    std::string points;
    const size_t n = q.size();
    const size_t step = std::max<size_t>(1, n / 2000);
    for (size_t i = 0; i < n; i += step) {
      points += fmt::format("{:.1f},{:.1f} ", x_of(ToSeconds(q[i])),
                            y_of(static_cast<double>(i + 1) / n));
    }
    if (n > 0) points += fmt::format("{:.1f},{:.1f}", x_of(ToSeconds(q[n - 1])), y_of(1));
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
                       color, points);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{}</text>\n",
                       kLeft + pw + 14, kTop + 10 + 20 * p, color, kLeft + pw + 34,
                       kTop + 15 + 20 * p, XmlEscape(runs[p].summary.policy));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace squeeze
