// store_bench: durable submissions/s of the JobStore (group commit) with 1 and 8 client
// threads, submit latency at a paced 500/s, and open + LoadUnfinished of 100,000 jobs; with
// --purge, the retention of finished jobs' details instead: the store's size before and after
// a purge of --jobs finished jobs, each transaction's time, and what a VACUUM costs.
//   build/bench/store_bench [--dir /tmp] [--jobs 100000] [--load-only] [--purge]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "store/job_store.h"
#include "store/sqlite_db.h"

namespace squeeze {
namespace {

using Clock = std::chrono::steady_clock;

double ElapsedSeconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

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
  r.spec.estimate = kHour;
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
        if (!store.Submit(BenchRequest(t * each + i), "bench", Seconds(i)).ok()) std::abort();
      }
    });
  }
  for (auto& c : clients) c.join();
  return threads * each / ElapsedSeconds(Clock::now() - start);
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
        if (!store.Submit(BenchRequest(i), "paced", Seconds(i)).ok()) std::abort();
        latencies[i] = ElapsedSeconds(Clock::now() - due) * 1000;
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
              jobs_loaded->size(), ElapsedSeconds(Clock::now() - start),
              CpuSeconds() - cpu_start, ElapsedSeconds(opened - start));
  // GET /v1/jobs's read: a page of 100 jobs (the first, and one in the middle), 200 times.
  std::vector<double> page_ms;
  for (int i = 0; i < 200; ++i) {
    ListFilter filter;
    filter.limit = 100;
    filter.after_id = i % 2 == 0 ? 0 : static_cast<JobId>(jobs_loaded->size() / 2);
    const auto began = Clock::now();
    if (!store->List(filter).ok()) std::abort();
    page_ms.push_back(ElapsedSeconds(Clock::now() - began) * 1000);
  }
  std::sort(page_ms.begin(), page_ms.end());
  std::printf("List, a page of 100 jobs: p50 %.2f ms  p99 %.2f ms\n", page_ms[100], page_ms[198]);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %ld MiB\n", usage.ru_maxrss / 1024);
}

// A finished job as a shared server keeps it: a batch script's text, the submitter's
// environment (--export=ALL: some 30 variables), a run with a checkpoint and its events.
JobRequest FinishedRequest(int i) {
  JobRequest r = BenchRequest(i);
  r.command = {"/bin/bash", "-c", std::string(600, '#') + " python train.py --seed " +
                                      std::to_string(i)};
  for (int v = 0; v < 30; ++v) {
    r.env["VAR_" + std::to_string(v)] = std::string(40, 'a' + v % 26) + std::to_string(i);
  }
  r.workdir = "/home/user" + std::to_string(i % 50) + "/project";
  return r;
}

void Fill(const std::string& dir, int jobs) {
  auto store = MustOpen(dir, false);
  constexpr int kThreads = 16;
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&store, t, jobs] {
      for (int i = t; i < jobs; i += kThreads) {
        const std::string user = "user" + std::to_string(i % 50);
        if (!store->Submit(FinishedRequest(i), user, Seconds(1000)).ok()) {
          std::abort();
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  for (JobId first = 1; first <= jobs; first += 1000) {
    JobStore::WriteBatch batch = store->BeginWrites();
    for (JobId id = first; id < std::min<JobId>(first + 1000, jobs + 1); ++id) {
      if (!store->RecordStart(id, 1, {0}, Seconds(2000), "owned").ok() ||
          !store->RecordCheckpoint(id, Seconds(2500), "step 1000").ok() ||
          !store->RecordExit(id, 0, Seconds(3000)).ok() ||
          !store->SetState(id, JobState::kDone, "", Seconds(3000)).ok()) {
        std::abort();
      }
    }
    if (!batch.Commit().ok()) std::abort();
  }
}

double MiB(const JobStore::Space& s) {
  return static_cast<double>(s.pages * s.page_size) / (1 << 20);
}

// Times `vacuum` (SQL) on the store file in `dir`, as a connection of its own.
double TimeVacuum(const std::string& dir, const std::string& sql) {
  auto db = SqliteDb::Open(dir + "/squeeze.db");
  if (!db.ok()) std::abort();
  const auto began = Clock::now();
  if (!(*db)->Exec(sql).ok()) std::abort();
  return ElapsedSeconds(Clock::now() - began);
}

// While `work` runs, a writer as the scheduling step is (one small transaction every 20 ms,
// fsynced) measures how long each of its writes takes; returns them sorted, in ms.
std::vector<double> WritesDuring(JobStore& store, JobId job, const std::function<void()>& work) {
  std::atomic<bool> done{false};
  std::vector<double> ms;
  std::thread step([&] {
    while (!done) {
      const auto t = Clock::now();
      if (!store.AppendEvent(job, Seconds(9000), "probe", "a step's write").ok()) std::abort();
      ms.push_back(ElapsedSeconds(Clock::now() - t) * 1000);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  work();
  done = true;
  step.join();
  std::sort(ms.begin(), ms.end());
  return ms;
}

std::string Percentiles(const std::vector<double>& ms) {
  char text[96];
  std::snprintf(text, sizeof(text), "p50 %.1f ms, p99 %.1f ms, max %.1f ms", ms[ms.size() / 2],
                ms[ms.size() * 99 / 100], ms.back());
  return text;
}

// As the daemon's purger does them (serve/store_purger.h, StorePurgerOptions).
constexpr int kPurgeBatch = 200;
constexpr int kReclaimPages = 512;

// Purges every finished job as the daemon's purger does (transactions with a pause between
// them), then gives the pages back; prints each part's times and the sizes.
void PurgeAndReclaim(JobStore& store, int jobs) {
  const JobStore::Space before = store.SpaceUsed().value();
  std::vector<double> batch_ms, reclaim_ms;
  auto began = Clock::now();
  for (;;) {
    const auto t = Clock::now();
    auto n = store.PurgeDetails(Seconds(5000), kPurgeBatch, Seconds(9000), "bench");
    if (!n.ok()) std::abort();
    batch_ms.push_back(ElapsedSeconds(Clock::now() - t) * 1000);
    if (*n < kPurgeBatch) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the purger's pause
  }
  const double purge_s = ElapsedSeconds(Clock::now() - began);
  const JobStore::Space purged = store.SpaceUsed().value();
  began = Clock::now();
  for (int64_t left = 1; left > 0;) {
    const auto t = Clock::now();
    left = store.ReclaimFreePages(kReclaimPages).value();
    reclaim_ms.push_back(ElapsedSeconds(Clock::now() - t) * 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double reclaim_s = ElapsedSeconds(Clock::now() - began);
  const JobStore::Space after = store.SpaceUsed().value();
  std::sort(batch_ms.begin(), batch_ms.end());
  std::sort(reclaim_ms.begin(), reclaim_ms.end());
  std::printf("store: %.1f MiB before; purged in %.2f s with the pauses (%zu transactions of %d "
              "jobs: %s), %.1f MiB of it free\n",
              MiB(before), purge_s, batch_ms.size(), kPurgeBatch, Percentiles(batch_ms).c_str(),
              static_cast<double>(purged.free_pages * purged.page_size) / (1 << 20));
  std::printf("given back in %.2f s with the pauses (%zu steps of %d pages: %s): %.1f MiB after, "
              "%.0f bytes per job\n",
              reclaim_s, reclaim_ms.size(), kReclaimPages, Percentiles(reclaim_ms).c_str(),
              MiB(after), static_cast<double>(after.pages * after.page_size) / jobs);
}

void PurgeBench(const std::string& base, int jobs) {
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  const std::string dir = base + "/purge";
  std::filesystem::remove_all(dir);
  auto began = Clock::now();
  Fill(dir, jobs);
  std::printf("filled %d finished jobs in %.1f s\n", jobs, ElapsedSeconds(Clock::now() - began));
  // As an older squeeze left it (no auto_vacuum), then the daemon's one-time conversion.
  const double to_old = TimeVacuum(dir, "PRAGMA auto_vacuum=NONE; VACUUM");
  began = Clock::now();
  auto store = std::move(JobStore::Open(dir, {.fsync_each_commit = true, .reclaim_space = true})
                             .value());
  std::printf("one-time conversion at open (VACUUM to incremental auto_vacuum): %.2f s "
              "(a plain VACUUM of the same store: %.2f s)\n  %s\n",
              ElapsedSeconds(Clock::now() - began), to_old, store->open_note().c_str());
  const JobId probe = *store->Submit(FinishedRequest(0), "probe", Seconds(1000));  // not finished
  const std::vector<double> step_ms =
      WritesDuring(*store, probe, [&] { PurgeAndReclaim(*store, jobs); });
  std::printf("a step's writes meanwhile (every 20 ms): %zu, %s\n", step_ms.size(),
              Percentiles(step_ms).c_str());
  const std::vector<double> alone = WritesDuring(*store, probe, [] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
  });
  std::printf("a step's writes with nothing else going on: %s\n", Percentiles(alone).c_str());
  const std::vector<double> vacuumed = WritesDuring(*store, probe, [&] {
    std::printf("a periodic VACUUM instead (the whole file rewritten under the write lock): "
                "%.2f s on the purged store\n", TimeVacuum(dir, "VACUUM"));
  });
  std::printf("a step's writes during that VACUUM: %s\n", Percentiles(vacuumed).c_str());
  store.reset();
  std::error_code ec;
  std::printf("squeeze.db on disk once closed: %.1f MiB\n",
              static_cast<double>(std::filesystem::file_size(dir + "/squeeze.db", ec)) / (1 << 20));
}

}  // namespace
}  // namespace squeeze

int main(int argc, char** argv) {
  std::string dir = "/tmp";
  int jobs = 100000;
  bool load_only = false;
  bool purge = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--load-only") load_only = true;
    if (flag == "--purge") purge = true;
    if (i + 1 == argc) break;
    if (flag == "--dir") dir = argv[i + 1];
    if (flag == "--jobs") jobs = std::atoi(argv[i + 1]);
  }
  const std::string base = dir + "/squeeze_store_bench_" + std::to_string(getpid());
  if (purge) {
    squeeze::PurgeBench(base, jobs);
  } else {
    squeeze::RunAll(base, jobs, load_only);
  }
  std::filesystem::remove_all(base);
  return 0;
}
