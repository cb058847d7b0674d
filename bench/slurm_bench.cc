// slurm_bench: `squeeze serve` dispatching to a real Slurm 22.05 cluster (issue 5, point 4).
// Starts its own one-node cluster through scripts/slurm-clusters.sh (own root, ports, munged;
// --gpus fake GPUs as GRES), a daemon with one Slurm pool on it, submits --jobs 1-GPU jobs as
// fast as the API takes them, waits until every one has ended, and reports:
//   (a) dispatch rate: Slurm jobs submitted per second by squeeze, from the instants its sbatch
//       calls returned (the mtime of DATA/slurm/ID.1.sbatch, written right after sbatch);
//   (b) the delay from squeeze's decision (the job's started_at) to Slurm's start (StartTime in
//       the cluster's jobcomp/filetxt log), split at Slurm's SubmitTime; whole seconds;
//   (c) the wall time from the first submission until the daemon counts every job ended.
//
//   build/bench/slurm_bench [--jobs 1000] [--gpus 64] [--command 'sleep 1'] [--clients 8]
//       [--root /tmp/squeeze-slurm-bench] [--port-base 6837] [--dir /tmp] [--json FILE]
//       [--squeeze PATH] [--script PATH] [--keep] [--user NAME]
// --user: the jobs run as that Unix account (a token of theirs submits them), and raw Slurm
// submits with the same --uid and --export=NONE; without it they run as root.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/slurm_bench_processes.h"
#include "config/job_values.h"
#include "exec/command_runner.h"
#include "slurm/batch_script.h"
#include "slurm/slurm_output.h"

#ifndef SQUEEZE_BINARY
#define SQUEEZE_BINARY "squeeze"
#endif
#ifndef SQUEEZE_SOURCE_DIR
#define SQUEEZE_SOURCE_DIR "."
#endif

namespace squeeze {
namespace {

using bench::Metric;
using bench::ReadFile;
using bench::SlurmBenchCluster;
using bench::SlurmBenchDaemon;

using nlohmann::json;
using Wall = std::chrono::system_clock;

struct Flags {
  std::string squeeze = SQUEEZE_BINARY;
  std::string script = SQUEEZE_SOURCE_DIR "/scripts/slurm-clusters.sh";
  std::string root = "/tmp/squeeze-slurm-bench";
  int port_base = 6837;
  int gpus = 64;
  int jobs = 1000;
  int clients = 8;
  std::string command = "sleep 1";
  std::string dir = "/tmp";
  std::string json_out;
  bool keep = false;
  // The Unix account the jobs run as (a token of theirs submits them; raw Slurm submits with
  // the same --uid and --export=NONE, so both load that user's login environment per job).
  // Empty: root's, as the admin token's jobs are.
  std::string user;
  // The nice value of the thread that times the reads during the drain (kept when empty): at
  // the daemon's own (-5), the figures leave out the bench's own wait for a core.
  std::optional<int> reader_nice;
};

double Now() { return std::chrono::duration<double>(Wall::now().time_since_epoch()).count(); }

double MtimeOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

struct Stats {
  double p50 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
  size_t n = 0;
};
Stats Summarize(std::vector<double> v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.p50 = v[v.size() / 2];
  s.p95 = v[std::min(v.size() - 1, v.size() * 95 / 100)];
  s.p99 = v[std::min(v.size() - 1, v.size() * 99 / 100)];
  s.max = v.back();
  for (double x : v) s.mean += x / v.size();
  return s;
}
json StatsJson(const Stats& s) {
  return {{"p50", s.p50}, {"p95", s.p95}, {"p99", s.p99}, {"max", s.max}, {"mean", s.mean},
          {"n", s.n}};
}

// Runs `squeue --json` against `conf`: (jobs it lists, wall seconds including the parse).
std::pair<size_t, double> TimeSqueue(const std::string& conf) {
  const double start = Now();
  std::string text;
  if (FILE* p = popen(("SLURM_CONF='" + conf + "' squeue --json 2>/dev/null").c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
    pclose(p);
  }
  auto jobs = ParseSqueueJson(text);
  return {jobs.ok() ? jobs->size() : 0, Now() - start};
}

// `clients` threads submit `jobs` jobs in all; returns the number refused.
int Submit(const SlurmBenchDaemon& d, const Flags& f) {
  json body = {{"name", "slurm-bench"}, {"gpus", 1}, {"command", json::array()}};
  std::istringstream words(f.command);
  for (std::string w; words >> w;) body["command"].push_back(w);
  const std::string text = body.dump();
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < f.clients; ++c) {
    threads.emplace_back([&, c] {
      auto client = d.Client();
      for (int i = c; i < f.jobs; i += f.clients) {
        auto res = client->Post("/v1/jobs", text, "application/json");
        if (!res || res->status != 201) {
          if (refused++ == 0) {
            std::fprintf(stderr, "slurm_bench: a submission was refused: %s\n",
                         res ? (std::to_string(res->status) + " " + res->body).c_str()
                             : httplib::to_string(res.error()).c_str());
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  return refused;
}

// What the daemon's API says of every job: id -> started_at (a Time; 0: never) and state.
std::map<int64_t, std::pair<Time, std::string>> ListJobs(const SlurmBenchDaemon& d) {
  std::map<int64_t, std::pair<Time, std::string>> out;
  auto c = d.Client();
  for (int64_t after = 0;;) {
    auto res = c->Get("/v1/jobs?limit=1000&after=" + std::to_string(after));
    if (!res || res->status != 200) break;
    const json page = json::parse(res->body);
    for (const json& j : page["jobs"]) {
      auto t = j["started_at"].is_string() ? ParseDateTime(j["started_at"].get<std::string>())
                                           : Result<Time>(Status::Error("never started"));
      out[j["id"]] = {t.ok() ? *t : 0, j["state"]};
    }
    if (!page.contains("next_after") || page["next_after"].is_null()) break;
    after = page["next_after"];
  }
  return out;
}

// What one run observed, before any figure is computed.
struct Observed {
  double t0 = 0, submitted = 0, drained = 0;  // epoch seconds; drained 0 = timed out
  int refused = 0;
  double daemon_cpu = 0, ctld_cpu = 0;
  std::vector<std::pair<size_t, double>> squeue_probes;  // (jobs listed, seconds)
  std::vector<double> metrics_s;  // how long each GET /metrics took during the drain
  std::vector<double> list_s;     // and each GET /v1/jobs (the first page, 100 jobs)
  std::map<int64_t, std::pair<Time, std::string>> jobs;  // the API's started_at and state
};

// Submits f.jobs jobs, waits until the daemon counts them all ended (GET /metrics every 0.1 s
// once answered; squeue --json timed at least 10 s apart), and reads the daemon's view of them.
Observed Observe(const Flags& f, const SlurmBenchCluster& cluster, const SlurmBenchDaemon& daemon) {
  Observed o;
  auto probe = daemon.Client();
  for (int i = 0; i < 600; ++i) {  // the pool's GPUs, from sinfo
    auto m = probe->Get("/metrics");
    if (m && Metric(m->body, "squeeze_gpus") >= f.gpus) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double ctld_cpu0 = bench::ProcessCpuSeconds(cluster.Ctld());
  o.t0 = Now();
  o.refused = Submit(daemon, f);
  o.submitted = Now();
  if (f.reader_nice) (void)setpriority(PRIO_PROCESS, 0, *f.reader_nice);  // this thread (Linux)
  for (double next_probe = o.t0; Now() - o.t0 < 3600;) {
    double asked = Now();
    (void)probe->Get("/v1/jobs");
    o.list_s.push_back(Now() - asked);
    asked = Now();
    auto m = probe->Get("/metrics");
    o.metrics_s.push_back(Now() - asked);
    if (m && m->status == 200 &&
        Metric(m->body, "squeeze_jobs_finished_total") >= f.jobs - o.refused) {
      o.drained = Now();
      break;
    }
    if (Now() >= next_probe) {  // squeue --json as the executor runs it before every sbatch
      o.squeue_probes.push_back(TimeSqueue(cluster.Conf()));
      next_probe = Now() + 10;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  o.daemon_cpu = bench::ProcessCpuSeconds(daemon.pid());
  o.ctld_cpu = bench::ProcessCpuSeconds(cluster.Ctld()) - ctld_cpu0;
  o.jobs = ListJobs(daemon);
  return o;
}

struct Figures {
  size_t dispatched = 0;
  double span = 0, rate = 0, mid_rate = 0;
  Stats between, before, sbatch;     // seconds per dispatch, from the run files' mtimes
  Stats delay, to_submit, slurm_wait;  // whole seconds, from started_at and jobcomp
  int done = 0, max_running = 0;
  size_t largest_batch = 0;  // the most jobs with the same started_at: one cycle's decisions
  // Within one cycle's starts (the same started_at, 8 or more): sbatch returns per second from
  // the first to the last, the outbox's parallel dispatch apart from the GPUs' turnover.
  Stats burst_rate;
};

// (a) from the instants each sbatch began (the script's mtime) and returned (.sbatch's).
void DispatchFigures(const Observed& o, const std::string& data_dir, Figures& fig) {
  std::vector<double> sent, scripted, sbatch_s, between_s, before_s;
  std::map<Time, std::vector<double>> returned_by_cycle;
  for (const auto& [id, job] : o.jobs) {
    const std::string base = data_dir + "/slurm/" + std::to_string(id) + ".1";
    const double returned = MtimeOf(base + ".sbatch"), script = MtimeOf(base + ".sh");
    if (returned > 0) sent.push_back(returned);
    if (returned > 0 && job.first > 0) returned_by_cycle[job.first].push_back(returned);
    if (script > 0) scripted.push_back(script);
    if (returned > 0 && script > 0) sbatch_s.push_back(returned - script);
  }
  std::sort(sent.begin(), sent.end());
  std::sort(scripted.begin(), scripted.end());
  for (size_t i = 1; i < sent.size(); ++i) between_s.push_back(sent[i] - sent[i - 1]);
  for (size_t i = 1; i < sent.size() && i < scripted.size(); ++i) {
    before_s.push_back(scripted[i] - sent[i - 1]);  // record + squeue --json + script
  }
  const size_t n = sent.size();
  fig.dispatched = n;
  fig.span = n > 1 ? sent.back() - sent.front() : 0;
  fig.rate = fig.span > 0 ? (n - 1) / fig.span : 0;
  const size_t lo = n / 10, hi = n - 1 - n / 10;  // the middle 80%
  if (n > 10 && sent[hi] > sent[lo]) fig.mid_rate = (hi - lo) / (sent[hi] - sent[lo]);
  std::vector<double> bursts;
  for (auto& [at, times] : returned_by_cycle) {
    if (times.size() < 8) continue;
    const auto [lo_t, hi_t] = std::minmax_element(times.begin(), times.end());
    if (*hi_t > *lo_t) bursts.push_back((times.size() - 1) / (*hi_t - *lo_t));
  }
  fig.burst_rate = Summarize(bursts);
  fig.between = Summarize(between_s);
  fig.before = Summarize(before_s);
  fig.sbatch = Summarize(sbatch_s);
}

// (b) squeeze's decision (started_at) -> Slurm's SubmitTime -> StartTime, from jobcomp.
void DelayFigures(const Observed& o, const std::string& jobcomp, Figures& fig) {
  std::map<int64_t, SlurmJob> by_id;
  if (auto comp = ParseJobcomp(ReadFile(jobcomp)); comp.ok()) {
    for (SlurmJob& j : *comp) {
      JobId id = 0;
      int attempt = 0;
      if (ParseSlurmJobName(j.name, id, attempt)) by_id[id] = j;
    }
  }
  std::vector<double> delay, to_submit, slurm_wait;
  std::vector<std::pair<int64_t, int>> running;  // (time, +1 start / -1 end)
  std::map<Time, size_t> decided_at;
  for (const auto& [id, job] : o.jobs) {
    fig.done += job.second == "done";
    if (job.first > 0) fig.largest_batch = std::max(fig.largest_batch, ++decided_at[job.first]);
    auto s = by_id.find(id);
    if (s == by_id.end() || !s->second.start_time || job.first == 0) continue;
    const SlurmJob& j = s->second;
    // Slurm's times are epoch seconds; started_at is a Time.
    delay.push_back(ToSeconds(Seconds(*j.start_time) - job.first));
    to_submit.push_back(ToSeconds(Seconds(j.submit_time) - job.first));
    slurm_wait.push_back(static_cast<double>(*j.start_time - j.submit_time));
    running.emplace_back(*j.start_time, 1);
    if (j.end_time) running.emplace_back(*j.end_time, -1);
  }
  std::sort(running.begin(), running.end());
  int now_running = 0;
  for (const auto& [t, d] : running) fig.max_running = std::max(fig.max_running, now_running += d);
  fig.delay = Summarize(delay);
  fig.to_submit = Summarize(to_submit);
  fig.slurm_wait = Summarize(slurm_wait);
}

// Slurm alone, on the same cluster once squeeze has left it: the same jobs sbatched straight to
// it from as many clients (no squeeze), and the time until it has run them all.
struct RawSlurm {
  double submit_s = 0, rate = 0, drain_s = -1;
  int refused = 0;
  int released = 0;  // jobs Slurm held after a failed launch, released
};

RawSlurm RunRawSlurm(const Flags& f, const std::string& conf) {
  RawSlurm r;
  const std::map<std::string, std::string> env = {{"SLURM_CONF", conf}};
  std::atomic<int> refused{0};
  const double t0 = Now();
  std::vector<std::thread> threads;
  for (int c = 0; c < f.clients; ++c) {
    threads.emplace_back([&, c] {
      for (int i = c; i < f.jobs; i += f.clients) {
        std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=raw-slurm-bench",
                                         "--gres=gpu:1", "--output=/dev/null",
                                         "--wrap=" + f.command};
        if (!f.user.empty()) {
          argv.insert(argv.begin() + 1, {"--uid=" + f.user, "--export=NONE"});
        }
        auto out = RunCommand(argv, env, 30000);
        if (!out.ok() || out->exit_code != 0) ++refused;
      }
    });
  }
  for (auto& t : threads) t.join();
  r.refused = refused;
  r.submit_s = Now() - t0;
  r.rate = r.submit_s > 0 ? (f.jobs - r.refused) / r.submit_s : 0;
  while (Now() - t0 < 1800) {
    auto out = RunCommand({"squeue", "-h", "--name=raw-slurm-bench", "-t",
                           "PENDING,RUNNING,CONFIGURING,COMPLETING", "-o", "%i %r"},
                          env, 30000);
    if (out.ok() && out->exit_code == 0 && out->out.find_first_not_of(" \n") == std::string::npos) {
      r.drain_s = Now() - t0;
      break;
    }
    // A job whose batch launch failed (slurmd missed BatchStartTimeout on a loaded machine) is
    // requeued and held by Slurm: released, as its user would, and counted.
    std::vector<std::string> held = {"scontrol", "release"};
    std::istringstream lines(out.ok() ? out->out : "");
    for (std::string line; std::getline(lines, line);) {
      if (line.find("launch failed requeued held") != std::string::npos) {
        held.push_back(line.substr(0, line.find(' ')));
      }
    }
    if (held.size() > 2) {
      (void)RunCommand(held, env, 30000);
      r.released += static_cast<int>(held.size()) - 2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return r;
}

void Report(const Flags& f, const Observed& o, const Figures& g, const RawSlurm& raw) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const double wall = o.drained > 0 ? o.drained - o.t0 : -1;
  std::printf("slurm_bench: %d jobs (%s, 1 GPU each) on 1 Slurm node with %d GPUs, as %s; "
              "cores=%d\n",
              f.jobs, f.command.c_str(), f.gpus, f.user.empty() ? "root" : f.user.c_str(), cores);
  std::printf("submit            %d jobs in %.2f s (%d refused)\n", f.jobs, o.submitted - o.t0, o.refused);
  std::printf("dispatch          %.2f sbatch/s overall (%zu in %.1f s), %.2f/s in the middle 80%%; cores=%d\n",
              g.rate, g.dispatched, g.span, g.mid_rate, cores);
  std::printf("  within a cycle's starts (%zu cycles of 8 or more): p50 %.1f / max %.1f sbatch/s\n",
              g.burst_rate.n, g.burst_rate.p50, g.burst_rate.max);
  std::printf("  between sbatch returns p50 %.3f / p95 %.3f / max %.3f s: before sbatch (record, "
              "squeue --json, script) p50 %.3f / p95 %.3f s, sbatch p50 %.3f / p95 %.3f s\n",
              g.between.p50, g.between.p95, g.between.max, g.before.p50, g.before.p95,
              g.sbatch.p50, g.sbatch.p95);
  std::printf("decision->RUNNING p50 %.0f / p95 %.0f / max %.0f s (whole seconds, %zu jobs); cores=%d\n",
              g.delay.p50, g.delay.p95, g.delay.max, g.delay.n, cores);
  std::printf("  decision->Slurm submit p50 %.0f / p95 %.0f / max %.0f s; Slurm submit->RUNNING "
              "p50 %.0f / p95 %.0f / max %.0f s\n", g.to_submit.p50, g.to_submit.p95,
              g.to_submit.max, g.slurm_wait.p50, g.slurm_wait.p95, g.slurm_wait.max);
  std::printf("drain             %.1f s wall from the first submission to %d jobs ended (%d done); cores=%d\n",
              wall, f.jobs, g.done, cores);
  const Stats metrics = Summarize(o.metrics_s), list = Summarize(o.list_s);
  // What the GPUs alone allow: every GPU busy from the first submission on.
  const double seconds_each = std::atof(f.command.substr(f.command.rfind(' ') + 1).c_str());
  const double gpu_bound = seconds_each * f.jobs / f.gpus;
  std::printf("  the GPUs alone allow %.1f s (%d x %s on %d GPUs): drain / GPU bound = %.2f\n",
              gpu_bound, f.jobs, f.command.c_str(), f.gpus, wall > 0 ? wall / gpu_bound : -1);
  std::printf("  at most %d Slurm jobs running at once; daemon CPU %.1f s, slurmctld CPU %.1f s; "
              "up to %zu decisions with one started_at\n",
              g.max_running, o.daemon_cpu, o.ctld_cpu, g.largest_batch);
  std::printf("reads during the drain: GET /metrics p50 %.4f / p99 %.4f / max %.3f s (%zu); "
              "GET /v1/jobs p50 %.4f / p99 %.4f / max %.3f s (%zu); cores=%d\n",
              metrics.p50, metrics.p99, metrics.max, metrics.n, list.p50, list.p99, list.max,
              list.n, cores);
  std::printf("raw Slurm         %.2f sbatch/s (%d jobs from %d clients in %.2f s, %d refused); "
              "drained in %.1f s (%d released after a failed launch); no squeeze; cores=%d\n",
              raw.rate, f.jobs, f.clients, raw.submit_s, raw.refused, raw.drain_s, raw.released,
              cores);
  std::string probes;
  json probes_json = json::array();
  for (const auto& [listed, s] : o.squeue_probes) {
    char one[64];
    std::snprintf(one, sizeof one, "%s%.2f s (%zu jobs)", probes.empty() ? "" : ", ", s, listed);
    probes += one;
    probes_json.push_back({{"jobs_listed", listed}, {"s", s}});
  }
  std::printf("  squeue --json, at least 10 s apart, then after the run: %s\n", probes.c_str());
  if (f.json_out.empty()) return;
  json out = {{"cores", cores}, {"jobs", f.jobs}, {"user", f.user.empty() ? "root" : f.user}, {"gpus", f.gpus}, {"command", f.command},
              {"refused", o.refused}, {"submit_s", o.submitted - o.t0}, {"dispatched", g.dispatched},
              {"dispatch_per_s", g.rate}, {"dispatch_per_s_middle80", g.mid_rate},
              {"between_sbatch_s", StatsJson(g.between)}, {"before_sbatch_s", StatsJson(g.before)},
              {"sbatch_s", StatsJson(g.sbatch)}, {"decision_to_running_s", StatsJson(g.delay)},
              {"decision_to_slurm_submit_s", StatsJson(g.to_submit)},
              {"slurm_submit_to_running_s", StatsJson(g.slurm_wait)}, {"drain_wall_s", wall},
              {"done", g.done}, {"max_running", g.max_running}, {"daemon_cpu_s", o.daemon_cpu},
              {"slurmctld_cpu_s", o.ctld_cpu}, {"squeue_json", probes_json},
              {"largest_decision_batch", g.largest_batch}, {"metrics_get_s", StatsJson(metrics)},
              {"jobs_get_s", StatsJson(list)}, {"gpu_bound_s", gpu_bound},
              {"dispatch_per_s_within_cycle", StatsJson(g.burst_rate)},
              {"drain_over_gpu_bound", wall > 0 ? wall / gpu_bound : -1},
              {"raw_slurm", {{"dispatch_per_s", raw.rate}, {"submit_s", raw.submit_s},
                             {"drain_wall_s", raw.drain_s}, {"refused", raw.refused},
                             {"released_after_failed_launch", raw.released},
                             {"clients", f.clients}}}};
  std::ofstream(f.json_out) << out.dump(2) << "\n";
}

int Run(const Flags& f) {
  const std::string dir = f.dir + "/slurm_bench." + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  SlurmBenchCluster cluster({f.script, f.root, f.port_base, f.gpus, f.keep});
  if (!cluster.Start()) {
    std::fprintf(stderr, "slurm_bench: the Slurm cluster did not start (root and Slurm needed; "
                         "scripts/setup.sh installs it)\n");
    return 1;
  }
  SlurmBenchDaemon daemon(f.squeeze, dir);
  if (!f.user.empty() && !daemon.UseTokenOf(f.user)) return 1;
  if (!daemon.Start(cluster.Conf())) return 1;
  Observed o = Observe(f, cluster, daemon);
  daemon.Stop();
  o.squeue_probes.push_back(TimeSqueue(cluster.Conf()));  // every job of the run listed
  Figures fig;
  DispatchFigures(o, daemon.data(), fig);
  DelayFigures(o, cluster.Jobcomp(), fig);
  const RawSlurm raw = RunRawSlurm(f, cluster.Conf());
  Report(f, o, fig, raw);
  if (f.keep) {
    std::printf("kept %s and the cluster under %s\n", dir.c_str(), f.root.c_str());
  } else {
    std::filesystem::remove_all(dir);
  }
  return o.drained > 0 && o.refused == 0 ? 0 : 1;
}

}  // namespace
}  // namespace squeeze

int main(int argc, char** argv) {
  squeeze::Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "slurm_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--jobs") f.jobs = std::atoi(next().c_str());
    else if (a == "--gpus") f.gpus = std::atoi(next().c_str());
    else if (a == "--clients") f.clients = std::max(1, std::atoi(next().c_str()));
    else if (a == "--command") f.command = next();
    else if (a == "--root") f.root = next();
    else if (a == "--port-base") f.port_base = std::atoi(next().c_str());
    else if (a == "--dir") f.dir = next();
    else if (a == "--json") f.json_out = next();
    else if (a == "--squeeze") f.squeeze = next();
    else if (a == "--script") f.script = next();
    else if (a == "--keep") f.keep = true;
    else if (a == "--user") f.user = next();
    else if (a == "--reader-nice") f.reader_nice = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "usage: slurm_bench [--jobs N] [--gpus N] [--command CMD] [--clients N] "
                           "[--root DIR] [--port-base P] [--dir DIR] [--json FILE] [--squeeze PATH] "
                           "[--script PATH] [--keep] [--user NAME] [--reader-nice N]\n");
      return 2;
    }
  }
  return squeeze::Run(f);
}
