// store_bench: durable submissions/s of the JobStore (group commit) with 1 and 8 client
// threads, submit latency at a paced 500/s, and open + LoadUnfinished of 100,000 jobs.
//   build/bench/store_bench [--dir /tmp] [--jobs 100000] [--load-only]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "store/job_store.h"

namespace squeeze {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU seconds (user + system) the process has used.
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

JobRequest BenchRequest(int i) {
  JobRequest r;
  r.spec.name = "bench-" + std::to_string(i);
  r.spec.team = "team" + std::to_string(i % 8);
  r.spec.gpus = 1 + i % 8;
  r.spec.estimate = 3600;
  r.command = {"python", "train.py", "--epochs", "10"};
  r.env = {{"SEED", std::to_string(i)}};
  return r;
}

std::unique_ptr<JobStore> MustOpen(const std::string& dir, bool fsync) {
  auto store = JobStore::Open(dir, {.fsync_each_commit = fsync});
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    std::exit(1);
  }
  return std::move(store).value();
}

// Runs `threads` clients submitting `each` jobs; returns the submissions per second.
double Throughput(JobStore& store, int threads, int each) {
  const auto start = Clock::now();
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&store, t, each] {
      for (int i = 0; i < each; ++i) {
        if (!store.Submit(BenchRequest(t * each + i), "bench", i).ok()) std::abort();
      }
    });
  }
  for (auto& c : clients) c.join();
  return threads * each / Seconds(Clock::now() - start);
}

// 8 clients together submit at `rate`/s for `total` jobs; latency is measured from the time
// each submission was due, so a stall counts against every submission it delayed.
void PacedLatency(JobStore& store, int rate, int total, double* p50_ms, double* p99_ms) {
  constexpr int kClients = 8;
  std::vector<double> latencies(total);
  const auto start = Clock::now() + std::chrono::milliseconds(10);
  const auto interval = std::chrono::nanoseconds(1'000'000'000LL / rate);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = c; i < total; i += kClients) {
        const auto due = start + interval * i;
        std::this_thread::sleep_until(due);
        if (!store.Submit(BenchRequest(i), "paced", i).ok()) std::abort();
        latencies[i] = Seconds(Clock::now() - due) * 1000;
      }
    });
  }
  for (auto& c : clients) c.join();
  std::sort(latencies.begin(), latencies.end());
  *p50_ms = latencies[total / 2];
  *p99_ms = latencies[total * 99 / 100];
}

void RunAll(const std::string& base, int jobs, bool load_only) {
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  for (bool fsync : {true, false}) {
    if (load_only) break;
    const char* mode = fsync ? "FULL  " : "NORMAL";
    for (int threads : {1, 8}) {
      const std::string dir = base + "/tput";
      std::filesystem::remove_all(dir);
      auto store = MustOpen(dir, fsync);
      const double rate = Throughput(*store, threads, threads == 1 ? 2000 : 1000);
      std::printf("synchronous=%s threads=%d  %8.0f durable submissions/s\n", mode, threads,
                  rate);
    }
    const std::string dir = base + "/paced";
    std::filesystem::remove_all(dir);
    auto store = MustOpen(dir, fsync);
    double p50 = 0, p99 = 0;
    PacedLatency(*store, 500, 2500, &p50, &p99);
    std::printf("synchronous=%s paced 500/s      p50 %.2f ms  p99 %.2f ms\n", mode, p50, p99);
  }

  const std::string dir = base + "/load";
  std::filesystem::remove_all(dir);
  {
    auto store = MustOpen(dir, false);
    Throughput(*store, 16, jobs / 16);
  }
  const double cpu_start = CpuSeconds();
  const auto start = Clock::now();
  auto store = MustOpen(dir, true);
  const auto opened = Clock::now();
  auto jobs_loaded = store->LoadUnfinished();
  if (!jobs_loaded.ok()) std::abort();
  std::printf("open + LoadUnfinished: %zu jobs in %.3f s wall, %.3f s CPU (open %.3f s)\n",
              jobs_loaded->size(), Seconds(Clock::now() - start),
              CpuSeconds() - cpu_start, Seconds(opened - start));
  // GET /v1/jobs's read: a page of 100 jobs (the first, and one in the middle), 200 times.
  std::vector<double> page_ms;
  for (int i = 0; i < 200; ++i) {
    ListFilter filter;
    filter.limit = 100;
    filter.after_id = i % 2 == 0 ? 0 : static_cast<JobId>(jobs_loaded->size() / 2);
    const auto began = Clock::now();
    if (!store->List(filter).ok()) std::abort();
    page_ms.push_back(Seconds(Clock::now() - began) * 1000);
  }
  std::sort(page_ms.begin(), page_ms.end());
  std::printf("List, a page of 100 jobs: p50 %.2f ms  p99 %.2f ms\n", page_ms[100], page_ms[198]);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %ld MiB\n", usage.ru_maxrss / 1024);
}

}  // namespace
}  // namespace squeeze

int main(int argc, char** argv) {
  std::string dir = "/tmp";
  int jobs = 100000;
  bool load_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--load-only") load_only = true;
    if (i + 1 == argc) break;
    if (flag == "--dir") dir = argv[i + 1];
    if (flag == "--jobs") jobs = std::atoi(argv[i + 1]);
  }
  const std::string base = dir + "/squeeze_store_bench_" + std::to_string(getpid());
  squeeze::RunAll(base, jobs, load_only);
  std::filesystem::remove_all(base);
  return 0;
}
