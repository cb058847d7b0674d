// The live queue and the simulator run the same core: over the same small trace, cluster and
// policy they make the same starts, in the same order, on the same GPUs. The live side is the
// real LiveQueue with its SQLite store and the local executor running real processes on
// virtual GPUs, driven by a clock the test sets: each job's process waits for a file, which
// the test writes when the job's duration (in scheduling time) has passed since its start, and
// the queue is stepped at that same time until the exit is seen, so every event happens at the
// time the simulator gives it.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/live_queue.h"
#include "sim/simulator.h"

namespace squeeze {
namespace {

struct TraceRow {
  int gpus;
  Time duration;
  Time estimate;  // 0: none
};

// Both GPU lists as "start ID on 0,1".
std::string StartLine(JobId id, const std::vector<int>& gpus) {
  std::string out = "start " + std::to_string(id) + " on ";
  for (size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
  return out;
}

std::vector<int> ParseGpus(const std::string& text) {  // "attempt 1 on GPUs [0,1] ..."
  std::vector<int> out;
  const size_t open = text.find('['), close = text.find(']');
  std::string digits;
  for (size_t i = open + 1; i <= close; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      digits += text[i];
    } else if (!digits.empty()) {
      out.push_back(std::stoi(digits));
      digits.clear();
    }
  }
  return out;
}

JobSpec SpecOf(JobId id, const TraceRow& row) {
  JobSpec spec;
  spec.id = id;
  spec.name = "j" + std::to_string(id);
  spec.gpus = row.gpus;
  if (row.estimate > 0) spec.estimate = row.estimate;
  return spec;
}

std::vector<std::string> Simulated(const std::vector<TraceRow>& rows, const ClusterSpec& cluster,
                                   const Policy& policy) {
  Trace trace;
  trace.source = "test";
  for (size_t i = 0; i < rows.size(); ++i) {
    trace.jobs.push_back({SpecOf(static_cast<JobId>(i + 1), rows[i]), rows[i].duration});
  }
  std::vector<std::string> out;
  SimOptions options;
  options.on_decision = [&](Time now, const Decision& d) {
    if (d.kind != Decision::Kind::kStart) {
      out.push_back("stop " + std::to_string(d.job));
      return;
    }
    std::vector<int> gpus;
    for (const NodeShare& s : d.placement.shares) gpus.insert(gpus.end(), s.gpus.begin(), s.gpus.end());
    out.push_back("at " + std::to_string(WholeSeconds(now)) + ": " + StartLine(d.job, gpus));
  };
  Result<SimResult> r = Simulate(trace, cluster, policy, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return out;
}

std::vector<std::string> Live(const std::vector<TraceRow>& rows, const LocalCluster& cluster,
                              const Policy& policy) {
  testing::TempDir dir;
  auto store = std::move(JobStore::Open(dir.path()).value());
  LocalExecutor executor(ExecutorOptions{dir.path(), "", 5000});
  auto q = LiveQueue::Create(cluster, policy, *store, executor, LiveQueueOptions{}).value();
  const std::string ends = dir.path() + "/ends";
  std::filesystem::create_directories(ends);
  std::map<JobId, Time> duration;
  for (size_t i = 0; i < rows.size(); ++i) {
    const JobId want = static_cast<JobId>(i + 1);
    JobRequest r;
    r.spec = SpecOf(want, rows[i]);
    const std::string file = ends + "/" + std::to_string(want);
    r.command = {"sh", "-c", "while [ ! -e " + file + " ]; do sleep 0.01; done"};
    const JobId id = store->Submit(r, "alice", 0).value();
    EXPECT_EQ(id, want);
    duration[id] = rows[i].duration;
    q->Add(store->Get(id).value());
  }
  auto state = [&](JobId id) { return store->Get(id).value().state; };
  std::map<JobId, Time> started;  // running jobs and their start, in scheduling time
  for (Time now = 0; now < 10'000 * kSecond && duration.size() > 0; now += kSecond) {
    for (auto it = started.begin(); it != started.end();) {
      if (it->second + duration.at(it->first) != now) {
        ++it;
        continue;
      }
      std::ofstream(ends + "/" + std::to_string(it->first)).put('\n');
      for (int i = 0; i < 500 && state(it->first) == JobState::kRunning; ++i) {
        q->Step(now);  // the same time until its exit is seen, as the simulator ends it at once
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      EXPECT_EQ(state(it->first), JobState::kDone) << "job " << it->first << " at " << now;
      duration.erase(it->first);
      it = started.erase(it);
    }
    q->Step(now);
    for (const auto& [id, d] : duration) {
      const StoredJob job = store->Get(id).value();
      if (job.state == JobState::kRunning && !started.count(id)) started[id] = *job.started_at;
    }
  }
  std::vector<std::string> out;
  const std::vector<JobEvent> events = store->RunEvents(0, 1'000'000 * kSecond).value();
  for (const JobEvent& e : events) {
    if (e.kind == "start") out.push_back("at " + std::to_string(WholeSeconds(e.at)) + ": " +
                                         StartLine(e.job, ParseGpus(e.text)));
  }
  return out;
}

// Four virtual GPUs on one host; jobs of 1 to 3 GPUs, all submitted at 0, in a strict order
// (fifo: job 3 blocks jobs 4 and 5 until job 2 ends) and with backfilling by estimates (jobs 4
// and 5 go ahead of job 3, whose reservation they do not delay).
TEST(LiveQueueVsSimTest, SameStartsInTheSameOrderOnTheSameGpus) {
  const std::vector<TraceRow> rows = {
      {2, 20 * kSecond, 20 * kSecond}, {2, 40 * kSecond, 40 * kSecond},
      {3, 20 * kSecond, 20 * kSecond}, {1, 30 * kSecond, 30 * kSecond},
      {1, 10 * kSecond, 10 * kSecond}};
  GpuInventory found{"virtual", VirtualGpus("4").value(), {}};
  const LocalCluster cluster = BuildLocalCluster(found, std::nullopt, "testhost").value();
  for (const std::string name : {"fifo", "backfill"}) {
    const Policy policy = NamedPolicy(name).value();
    const std::vector<std::string> sim = Simulated(rows, cluster.spec, policy);
    ASSERT_EQ(sim.size(), rows.size()) << name;
    EXPECT_EQ(Live(rows, cluster, policy), sim) << name;
  }
}

}  // namespace
}  // namespace squeeze
