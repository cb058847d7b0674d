// why_bench: how long `squeeze why` (LiveQueue::WhyJson: the explanation and the forecast on a
// copy of the live scheduler) takes with 1,000 running and 10,000 waiting jobs, and the
// dashboard's refresh (the why of the first 30 waiting jobs). The real LiveQueue and store; the
// runs are started by an executor that only notes them (the bench times the why, not forks).
//   build/bench/why_bench [--dir /tmp] [--running 1000] [--pending 10000] [--policy squeeze]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "config/cluster_file.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

using Clock = std::chrono::steady_clock;

// Runs nothing: notes each start, so the live queue holds them as running.
class NotingExecutor : public Executor {
 public:
  Result<RunInfo> Start(JobId id, int attempt, const JobRequest&, const RunPlace&,
                        bool) override {
    std::lock_guard l(mu_);
    running_.insert(id);
    return RunInfo{id, attempt, 0, 0, std::nullopt, "", "", ""};
  }
  Status RequestCheckpoint(JobId) override { return Status::Ok(); }
  Status Stop(JobId, Time, Time) override { return Status::Ok(); }
  std::vector<ExecEvent> Poll(Time) override { return {}; }
  Result<std::vector<RunInfo>> Reattach() override { return std::vector<RunInfo>{}; }
  bool IsRunning(JobId id) const override {
    std::lock_guard l(mu_);
    return running_.count(id) > 0;
  }
  size_t RunningCount() const override {
    std::lock_guard l(mu_);
    return running_.size();
  }

 private:
  mutable std::mutex mu_;
  std::set<JobId> running_;
};

struct Figures {
  double p50 = 0, p99 = 0, max = 0;
};
Figures Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  if (ms.empty()) return {};
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back()};
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int Run(const std::string& dir, int running, int pending, const std::string& policy_name) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const int nodes = (running + 7) / 8;
  const std::string yaml = "pools:\n  - name: local\n    nodes:\n      - count: " +
                           std::to_string(nodes) + "\n        name_prefix: n\n        gpus: 8\n";
  GpuInventory found{"virtual", VirtualGpus(std::to_string(nodes * 8)).value(), {}};
  auto cluster = BuildLocalCluster(found, ParseClusterYaml(yaml, "bench.yaml").value(), "bench");
  if (!cluster.ok()) {
    std::fprintf(stderr, "why_bench: %s\n", cluster.status().message().c_str());
    return 1;
  }
  JobStore::Options so;
  so.fsync_each_commit = false;
  auto store = JobStore::Open(dir, so).value();
  NotingExecutor executor;
  LiveQueueOptions options;
  options.forecast_in_background = true;  // as squeeze serve runs it
  auto q = LiveQueue::Create(*cluster, NamedPolicy(policy_name).value(), *store, executor,
                             options)
               .value();
  Time now = Seconds(1'800'000'000);
  uint64_t lcg = 42;
  auto draw = [&](uint64_t n) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (lcg >> 33) % n;
  };
  auto submit = [&](int gpus, Urgency urgency, bool preemptible) {
    JobRequest r;
    r.command = {"true"};
    r.spec.name = "bench";
    r.spec.team = "team" + std::to_string(draw(8));
    r.spec.gpus = gpus;
    r.spec.urgency = urgency;
    r.spec.preemptible = r.spec.checkpointable = preemptible;
    r.spec.estimate = 10 * kMinute + Seconds(static_cast<int64_t>(draw(4 * kHour / kSecond)));
    const JobId id = store->Submit(r, "alice", now).value();
    q->Add(store->Get(id).value());
    return id;
  };
  const auto t0 = Clock::now();
  // The running jobs are not preemptible (the queue's steady state: an urgent job that could
  // preempt has done so); the waiting ones are, half of them, and one in ten is urgent.
  for (int i = 0; i < nodes * 8; ++i) submit(1, Urgency::kNormal, false);
  q->Step(now);
  q->WaitForDispatch();
  std::vector<JobId> waiting;
  static const int kSizes[] = {1, 1, 1, 1, 2, 4, 8};
  for (int i = 0; i < pending; ++i) {
    const Urgency u = draw(10) == 0 ? Urgency::kHigh : Urgency::kNormal;
    waiting.push_back(submit(kSizes[draw(7)], u, draw(2) == 0));
  }
  q->Step(now += kSecond);
  q->WaitForDispatch();
  const auto step_began = Clock::now();
  q->Step(now += kSecond);  // a step of the daemon with this queue: one cycle that starts nothing
  const double step_ms = Ms(Clock::now() - step_began);
  const LiveQueue::Gauges g = q->Snapshot();
  int64_t running_now = 0, pending_now = 0;
  for (const auto& [u, n] : g.running_by_urgency) running_now += n;
  for (const auto& [u, n] : g.pending_by_urgency) pending_now += n;
  std::printf("why_bench: %lld running, %lld waiting on %d nodes x 8 GPUs, policy %s "
              "(set up in %.1f s); cores=%u\n",
              static_cast<long long>(running_now), static_cast<long long>(pending_now), nodes,
              policy_name.c_str(), Ms(Clock::now() - t0) / 1000, std::thread::hardware_concurrency());

  // Daemon time follows the real clock from here, as squeeze serve's does (a step a second
  // while jobs run; here a step before each measurement, so every why finds a new state).
  const Time base = now;
  const auto clock0 = Clock::now();
  auto daemon_now = [&] {  // read in milliseconds, as the daemon reads its clock
    return base + FromMilliseconds(static_cast<int64_t>(Ms(Clock::now() - clock0))) + kSecond;
  };
  std::vector<double> ages;
  auto why = [&](JobId id, Time at, std::vector<double>& ms) {
    const auto began = Clock::now();
    auto answer = q->WhyJson(id, at);
    ms.push_back(Ms(Clock::now() - began));
    if (answer && answer->contains("forecast_age_s")) {
      ages.push_back((*answer)["forecast_age_s"].get<double>());
    }
    return answer;
  };
  // The first why: no forecast yet, so it makes one of the whole queue itself.
  std::vector<double> first_ms;
  q->Step(now = daemon_now());
  why(waiting.back(), now, first_ms);
  // The dashboard: the first 30 waiting jobs by id (its queue table), 10 refreshes, each after
  // a step (the state changed since the last forecast).
  std::vector<double> refresh_ms, dashboard_why_ms;
  for (int r = 0; r < 10; ++r) {
    q->Step(now = daemon_now());
    const auto began = Clock::now();
    for (int i = 0; i < 30 && i < static_cast<int>(waiting.size()); ++i) {
      why(waiting[i], now, dashboard_why_ms);
    }
    refresh_ms.push_back(Ms(Clock::now() - began));
  }
  // Any waiting job: 200 drawn from the whole queue, each after a step.
  std::vector<double> any_ms;
  int forecast = 0, bounded = 0;
  for (int i = 0; i < 200; ++i) {
    const JobId id = waiting[draw(waiting.size())];
    q->Step(now = daemon_now());
    auto answer = why(id, now, any_ms);
    forecast += answer && (*answer)["expected_start_in_s"].is_number();
    bounded += answer && answer->contains("expected_start_not_before_s");
  }
  const Figures refresh = Summarize(refresh_ms), dash = Summarize(dashboard_why_ms),
                any = Summarize(any_ms), age = Summarize(ages);
  std::printf("one step of the daemon (a cycle that starts nothing)  %.1f ms\n", step_ms);
  std::printf("the first why (makes the first whole-queue forecast itself)  %.1f ms\n",
              first_ms.front());
  std::printf("each after a step of the daemon (a new state; its forecast made in the "
              "background):\n");
  std::printf("dashboard refresh (30 whys)  p50 %.1f / p99 %.1f / max %.1f ms (10 refreshes)\n",
              refresh.p50, refresh.p99, refresh.max);
  std::printf("  one why of the first 30    p50 %.2f / p99 %.2f / max %.2f ms\n", dash.p50,
              dash.p99, dash.max);
  std::printf("why of any waiting job       p50 %.2f / p99 %.2f / max %.2f ms (200 drawn; %d "
              "with a forecast, %d beyond the forecast's cycles)\n",
              any.p50, any.p99, any.max, forecast, bounded);
  std::printf("age of the forecast answered from  p50 %.0f / p99 %.0f / max %.0f s\n", age.p50,
              age.p99, age.max);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace squeeze

int main(int argc, char** argv) {
  std::string dir = "/tmp", policy = "squeeze";
  int running = 1000, pending = 10000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--dir") dir = v;
    else if (a == "--running") running = std::atoi(v.c_str());
    else if (a == "--pending") pending = std::atoi(v.c_str());
    else if (a == "--policy") policy = v;
    else {
      std::fprintf(stderr, "usage: why_bench [--dir /tmp] [--running 1000] [--pending 10000] "
                           "[--policy squeeze]\n");
      return 2;
    }
  }
  return squeeze::Run(dir + "/why_bench." + std::to_string(getpid()), running, pending, policy);
}
