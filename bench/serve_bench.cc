// serve_bench: the real `squeeze serve` process, measured over HTTP.
//   1. durable submissions/s from 8 keep-alive clients (--sync full and --sync normal);
//   2. submit latency at a paced 500 requests/s, open loop (p50/p99/max);
//   3. restart with 100,000 pending jobs: exec -> first GET /healthz, -> first GET /v1/jobs;
//   4. the daemon's VmRSS / VmHWM with those jobs, after the restart and after a full listing;
//   5. one submission of a 10,000-task job array (--array-tasks): the answer's latency;
//   6. `squeeze queue` (the command, every page) with 10,000, 50,000 and 100,000 waiting jobs
//      (--queue-jobs): the caps' worth per user and per team, and the flood they stop.
//
//   build-bench/bench/serve_bench [--squeeze PATH] [--dir /tmp] [--clients 8] [--each 1000]
//       [--rate 500] [--seconds 10] [--jobs 100000] [--restarts 3]
//       [--only tput,paced,restart,array,queue] [--array-tasks 10000]
//       [--queue-jobs 10000,50000,100000] [--json FILE]
//       [--tcp-nodelay] [--server-nodelay] [--keep]
//
// --tcp-nodelay sets TCP_NODELAY on the benchmark's sockets (curl and most HTTP clients do);
// --server-nodelay also on the daemon's, through the LD_PRELOAD shim serve_bench_nodelay.so,
// to measure httplib::Server::set_tcp_nodelay(true) without rebuilding the daemon. --keep keeps
// the temp directory and prints the daemon's stderr, each line stamped with its time since exec.
//
// Every daemon runs in a fresh directory under --dir with --virtual-gpus 1. Submitted jobs ask
// for that one GPU and are not preemptible, so one job (`sleep 100000`) holds it and the rest
// wait: the benchmark measures accepting jobs, not starting processes. At the end the running
// job is cancelled, the daemon gets SIGTERM, any supervisor left is killed and the directory is
// removed.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "config/job_file.h"
#include "store/job_store.h"
#include "store/request_json.h"
#include "store/sqlite_db.h"

#ifndef SQUEEZE_BINARY
#define SQUEEZE_BINARY "squeeze"
#endif
#ifndef SERVE_BENCH_NODELAY_SO
#define SERVE_BENCH_NODELAY_SO ""
#endif

namespace squeeze {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
double Ms(Clock::duration d) { return Seconds(d) * 1000; }

// CPU seconds (user + system) this process has used.
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

constexpr const char* kJobBody =
    R"({"name":"bench","command":["sleep","100000"],"gpus":1})";

struct Flags {
  std::string squeeze = SQUEEZE_BINARY;
  std::string dir = "/tmp";
  int clients = 8;
  int each = 1000;
  int rate = 500;
  double seconds = 10;
  int jobs = 100000;
  int restarts = 3;
  int array_tasks = 10000;  // the array part's tasks
  std::string queue_jobs = "10000,50000,100000";  // the queue part's waiting jobs, each run
  std::string only;  // empty = everything
  std::string json_out;
  bool nodelay = false;         // TCP_NODELAY on the benchmark's client sockets
  bool server_nodelay = false;  // ... and on the daemon's (LD_PRELOAD serve_bench_nodelay.so)
  bool keep = false;
};

bool Wanted(const Flags& f, const std::string& part) {
  return f.only.empty() || ("," + f.only + ",").find("," + part + ",") != std::string::npos;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// VmRSS and VmHWM of `pid`, in MiB.
std::pair<double, double> Memory(pid_t pid) {
  std::istringstream in(ReadFile("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  double rss = 0, hwm = 0;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = std::atof(line.c_str() + 6) / 1024;
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::atof(line.c_str() + 6) / 1024;
  }
  return {rss, hwm};
}

// CPU seconds (user + system) process `pid` has used so far.
double ProcessCpuSeconds(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream in(stat.substr(paren + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {  // fields 14 and 15: utime, stime
    if (i == 14) utime = std::atof(field.c_str());
    if (i == 15) stime = std::atof(field.c_str());
  }
  return (utime + stime) / sysconf(_SC_CLK_TCK);
}

// Latency percentiles of a sample, in ms.
struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};
Percentiles Summarize(std::vector<double> ms) {
  Percentiles p;
  if (ms.empty()) return p;
  std::sort(ms.begin(), ms.end());
  p.p50 = ms[ms.size() / 2];
  p.p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  p.max = ms.back();
  return p;
}

// Whether process `pid` has a file under `dir` open (a supervisor holds its run's log in
// DIR/logs; its command line names only its mode).
bool HoldsFileUnder(const std::string& pid, const std::string& dir) {
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + pid + "/fd", ec)) {
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind(dir + "/", 0) == 0) return true;
  }
  return false;
}

// Kills what the daemon left behind: squeeze-supervisor processes started for `data_dir`
// (found by the run's log they hold open) and their jobs' process groups, found through /proc.
// Returns the number of processes and groups killed.
int KillLeftovers(const std::string& data_dir) {
  std::vector<pid_t> supervisors;
  std::vector<std::pair<pid_t, pid_t>> parent_of;  // (pid, ppid)
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::atoi(name.c_str());
    const std::string cmdline = ReadFile("/proc/" + name + "/cmdline");
    std::vector<std::string> argv;
    for (size_t at = 0; at < cmdline.size();) {
      const size_t end = cmdline.find('\0', at);
      argv.push_back(cmdline.substr(at, end == std::string::npos ? end : end - at));
      if (end == std::string::npos) break;
      at = end + 1;
    }
    if (!argv.empty() && argv[0].find("squeeze-supervisor") != std::string::npos &&
        HoldsFileUnder(name, data_dir)) {
      supervisors.push_back(pid);
    }
    const std::string stat = ReadFile("/proc/" + name + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') {
      continue;  // ended, not yet reaped
    }
    if (paren != std::string::npos && paren + 4 < stat.size()) {
      parent_of.emplace_back(pid, std::atoi(stat.c_str() + paren + 4));
    }
  }
  int killed = 0;
  for (pid_t s : supervisors) {
    for (auto [pid, ppid] : parent_of) {  // the job: the leader of its own process group
      if (ppid == s && (kill(-pid, SIGKILL) == 0 || kill(pid, SIGKILL) == 0)) ++killed;
    }
    if (kill(s, SIGKILL) == 0) ++killed;
  }
  return killed;
}

// One `squeeze serve` process, its stderr read by a thread that stamps each line with the
// time since exec (the daemon prints each start-up phase as it ends).
class Daemon {
 public:
  Daemon(const Flags& flags, std::string data_dir, std::string sync)
      : flags_(flags), dir_(std::move(data_dir)), sync_(std::move(sync)) {}
  ~Daemon() { Stop(); }

  // Starts the daemon; returns false if it did not come up in 120 s.
  bool Start() {
    std::filesystem::create_directories(dir_);
    std::filesystem::remove(dir_ + "/serve.url");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    std::vector<std::string> args = {flags_.squeeze, "serve", "--data", dir_, "--listen",
                                     "127.0.0.1:0", "--virtual-gpus", "1", "--sync", sync_};
    // A root daemon refuses root's jobs unless told (the benchmark's jobs are root's then).
    if (geteuid() == 0) args.push_back("--allow-root-jobs");
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    exec_at_ = Clock::now();
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      if (flags_.server_nodelay) setenv("LD_PRELOAD", SERVE_BENCH_NODELAY_SO, 1);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    err_fd_ = fds[0];
    reader_ = std::thread([this] { ReadStderr(); });
    // The URL file is written once the API listens.
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!std::filesystem::exists(dir_ + "/serve.url")) {
      if (Clock::now() > deadline || waitpid(pid_, nullptr, WNOHANG) == pid_) {
        std::fprintf(stderr, "serve_bench: the daemon did not start:\n%s\n", Log().c_str());
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    std::string url = ReadFile(dir_ + "/serve.url");
    while (!url.empty() && (url.back() == '\n' || url.back() == '\r')) url.pop_back();
    port_ = std::atoi(url.substr(url.rfind(':') + 1).c_str());
    std::istringstream token(ReadFile(dir_ + "/admin.token"));
    token >> token_;
    return port_ > 0 && !token_.empty();
  }

  std::unique_ptr<httplib::Client> Client(std::atomic<int>* connections = nullptr) const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
    c->set_keep_alive(true);
    c->set_connection_timeout(5, 0);
    c->set_read_timeout(60, 0);
    c->set_tcp_nodelay(flags_.nodelay);
    c->set_bearer_token_auth(token_);
    if (connections) {
      const bool nodelay = flags_.nodelay;
      c->set_socket_options([connections, nodelay](socket_t sock) {
        connections->fetch_add(1);
        int yes = 1;
        if (nodelay) setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
      });
    }
    return c;
  }

  // Cancels every running job, waits for them to end, SIGTERMs the daemon, kills leftovers.
  // kill_jobs = false leaves the running jobs running, to be taken back by the next daemon.
  void Stop(bool kill_jobs = true) {
    if (pid_ > 0) StopDaemon(kill_jobs);
    stop_reader_ = true;
    if (reader_.joinable()) reader_.join();
    if (err_fd_ >= 0) close(err_fd_);
    err_fd_ = -1;
  }
  // The daemon stops on SIGTERM and leaves running jobs running (by design); then their
  // supervisors and job process groups are killed. (Cancelling the job that holds the GPU
  // instead would only let the daemon start the next waiting job.)
  void StopDaemon(bool kill_jobs) {
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 200 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      std::fprintf(stderr, "serve_bench: the daemon ignored SIGTERM for 10 s; SIGKILL\n");
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    if (kill_jobs) killed_ += KillLeftovers(dir_);
  }

  // Seconds since exec at which the first stderr line containing `text` arrived, or -1.
  double LineAt(const std::string& text) {
    std::lock_guard l(mu_);
    for (const auto& [at, line] : lines_) {
      if (line.find(text) != std::string::npos) return at;
    }
    return -1;
  }
  std::string LineText(const std::string& text) {
    std::lock_guard l(mu_);
    for (const auto& [at, line] : lines_) {
      if (line.find(text) != std::string::npos) return line;
    }
    return "";
  }
  std::string Log() {
    std::lock_guard l(mu_);
    std::string out;
    char stamp[32];
    for (const auto& [at, line] : lines_) {
      std::snprintf(stamp, sizeof stamp, "  [%7.3f s] ", at);
      out += stamp + line + "\n";
    }
    return out;
  }

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  const std::string& token() const { return token_; }
  int killed() const { return killed_; }
  Clock::time_point exec_at() const { return exec_at_; }

 private:
  void ReadStderr() {
    std::string partial;
    char buf[4096];
    while (!stop_reader_) {
      pollfd p{err_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const ssize_t n = read(err_fd_, buf, sizeof buf);
      if (n <= 0) break;
      const double at = Seconds(Clock::now() - exec_at_);
      partial.append(buf, n);
      size_t nl;
      while ((nl = partial.find('\n')) != std::string::npos) {
        std::lock_guard l(mu_);
        lines_.emplace_back(at, partial.substr(0, nl));
        partial.erase(0, nl + 1);
      }
    }
  }

  const Flags& flags_;
  const std::string dir_;
  const std::string sync_;
  pid_t pid_ = -1;
  int port_ = 0;
  int killed_ = 0;
  std::string token_;
  Clock::time_point exec_at_;
  int err_fd_ = -1;
  std::thread reader_;
  std::atomic<bool> stop_reader_{false};
  std::mutex mu_;
  std::vector<std::pair<double, std::string>> lines_;
};

// Submits the job that holds the one GPU and waits until it runs.
bool HoldTheGpu(Daemon& d) {
  auto c = d.Client();
  auto res = c->Post("/v1/jobs", kJobBody, "application/json");
  if (!res || res->status != 201) return false;
  const int64_t id = json::parse(res->body)["id"];
  for (int i = 0; i < 500; ++i) {
    auto got = c->Get("/v1/jobs/" + std::to_string(id));
    if (got && got->status == 200 && json::parse(got->body)["state"] == "running") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Requests over 200 ms, and how many of them opened a new connection (httplib's server closes
// a keep-alive connection after 5 requests, so a client reconnects every 5th request).
struct SlowRequests {
  std::atomic<int> slow{0}, slow_on_new_connection{0};
  void Note(double ms, bool new_connection) {
    if (ms <= 200) return;
    ++slow;
    if (new_connection) ++slow_on_new_connection;
  }
};

struct Throughput {
  double per_s = 0;
  double wall_s = 0;
  int errors = 0;
  int connections = 0;
  int slow = 0, slow_new = 0;
  Percentiles latency;
};

// `clients` threads, each with its own keep-alive connection, submit `each` jobs as fast as
// they are answered.
Throughput ClosedLoop(Daemon& d, int clients, int each) {
  Throughput t;
  std::atomic<int> errors{0};
  SlowRequests slow;
  auto connections = std::make_unique<std::atomic<int>[]>(clients);
  std::vector<std::vector<double>> lat(clients);
  std::vector<std::unique_ptr<httplib::Client>> conns;
  for (int i = 0; i < clients; ++i) conns.push_back(d.Client(&connections[i]));
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      lat[c].reserve(each);
      for (int i = 0; i < each; ++i) {
        const auto sent = Clock::now();
        const int opened = connections[c].load();
        auto res = conns[c]->Post("/v1/jobs", kJobBody, "application/json");
        if (!res || res->status != 201) ++errors;
        lat[c].push_back(Ms(Clock::now() - sent));
        slow.Note(lat[c].back(), connections[c].load() != opened);
      }
    });
  }
  for (auto& th : threads) th.join();
  t.wall_s = Seconds(Clock::now() - start);
  t.per_s = clients * each / t.wall_s;
  t.errors = errors;
  for (int i = 0; i < clients; ++i) t.connections += connections[i];
  t.slow = slow.slow;
  t.slow_new = slow.slow_on_new_connection;
  std::vector<double> all;
  for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
  t.latency = Summarize(std::move(all));
  return t;
}

struct Paced {
  int sent = 0;
  int errors = 0;
  int connections = 0;
  int slow = 0, slow_new = 0;  // sent-to-answered over 200 ms; of them, on a new connection
  Percentiles from_due;   // latency measured from when the request was due (open loop)
  Percentiles from_send;  // from when it was actually sent
};

// `rate` requests/s for `seconds`, request i due at start + i/rate, sent by thread i % threads.
Paced OpenLoop(Daemon& d, int rate, double seconds, int threads_n) {
  const int total = static_cast<int>(rate * seconds);
  std::vector<double> due_ms(total), send_ms(total);
  std::atomic<int> errors{0};
  SlowRequests slow;
  auto connections = std::make_unique<std::atomic<int>[]>(threads_n);
  std::vector<std::unique_ptr<httplib::Client>> conns;
  for (int i = 0; i < threads_n; ++i) conns.push_back(d.Client(&connections[i]));
  const auto start = Clock::now() + std::chrono::milliseconds(20);
  const auto interval = std::chrono::nanoseconds(1'000'000'000LL / rate);
  std::vector<std::thread> threads;
  for (int c = 0; c < threads_n; ++c) {
    threads.emplace_back([&, c] {
      for (int i = c; i < total; i += threads_n) {
        const auto due = start + interval * i;
        std::this_thread::sleep_until(due);
        const auto sent = Clock::now();
        const int opened = connections[c].load();
        auto res = conns[c]->Post("/v1/jobs", kJobBody, "application/json");
        if (!res || res->status != 201) ++errors;
        const auto done = Clock::now();
        due_ms[i] = Ms(done - due);
        send_ms[i] = Ms(done - sent);
        slow.Note(send_ms[i], connections[c].load() != opened);
      }
    });
  }
  for (auto& th : threads) th.join();
  Paced p;
  p.sent = total;
  p.errors = errors;
  for (int i = 0; i < threads_n; ++i) p.connections += connections[i];
  p.slow = slow.slow;
  p.slow_new = slow.slow_on_new_connection;
  p.from_due = Summarize(due_ms);
  p.from_send = Summarize(send_ms);
  return p;
}

// Fills `dir`'s store with `jobs` pending jobs through the JobStore library (NORMAL sync, many
// threads so that group commit makes big transactions), as the daemon would have stored them.
bool FillStore(const std::string& dir, int jobs) {
  std::filesystem::create_directories(dir);
  auto store = JobStore::Open(dir, {.fsync_each_commit = false});
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return false;
  }
  // squeeze::Seconds: this file's own Seconds measures a steady-clock duration.
  const Time now = squeeze::Seconds(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
  auto request = ParseJobJson(kJobBody, now);
  if (!request.ok()) {
    std::fprintf(stderr, "%s\n", request.status().message().c_str());
    return false;
  }
  request->spec.team = "admin";  // what the daemon sets for the admin token
  constexpr int kThreads = 32;
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (next.fetch_add(1) < jobs) {
        if (!(*store)->Submit(*request, "admin", now).ok()) failed = true;
      }
    });
  }
  for (auto& th : threads) th.join();
  return !failed;
}

struct Restart {
  double healthz_s = -1, list_s = -1;
  double cpu_s = -1;  // the daemon's CPU time when it first answered GET /v1/jobs
  double rss_mib = 0, hwm_mib = 0;
  double full_list_s = 0;
  int listed = 0;
  double rss_after_list_mib = 0, hwm_after_list_mib = 0;
  std::string log;
  double loaded_at = -1, listening_at = -1, data_at = -1;
  std::string recovered_line;
};

// Starts the daemon on a filled store; times exec -> healthz -> authenticated GET /v1/jobs.
bool TimeRestart(const Flags& flags, const std::string& dir, bool kill_jobs, Restart& r) {
  Daemon d(flags, dir, "full");
  if (!d.Start()) return false;
  {
    httplib::Client c("127.0.0.1", d.port());
    while (true) {
      auto res = c.Get("/healthz");
      if (res && res->status == 200) break;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }
  r.healthz_s = Seconds(Clock::now() - d.exec_at());
  auto c = d.Client();
  while (true) {
    auto res = c->Get("/v1/jobs?limit=1");
    if (res && res->status == 200) break;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  r.list_s = Seconds(Clock::now() - d.exec_at());
  // The API answers during the recovery: memory is read once the whole queue is in place.
  while (d.LineText("took back ").empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  r.cpu_s = ProcessCpuSeconds(d.pid());
  std::tie(r.rss_mib, r.hwm_mib) = Memory(d.pid());
  // Page through every job, 1,000 at a time.
  const auto list_start = Clock::now();
  int64_t after = 0;
  while (true) {
    auto res = c->Get("/v1/jobs?limit=1000&after=" + std::to_string(after));
    if (!res || res->status != 200) break;
    json page = json::parse(res->body);
    r.listed += static_cast<int>(page["jobs"].size());
    if (!page.contains("next_after")) break;
    after = page["next_after"];
  }
  r.full_list_s = Seconds(Clock::now() - list_start);
  std::tie(r.rss_after_list_mib, r.hwm_after_list_mib) = Memory(d.pid());
  r.data_at = d.LineAt("data in ");
  r.loaded_at = d.LineAt("took back ");
  r.listening_at = d.LineAt("listening on ");
  r.recovered_line = d.LineText("took back ");
  d.Stop(kill_jobs);
  r.log = d.Log();
  return true;
}

// Where a restart's recovery goes, timed in this process on the daemon's store (the daemon is
// stopped): the SQL scan alone, JobStore::LoadUnfinished (scan + decoding each row), and the
// request JSON decode alone. The rest of the daemon's recovery is queueing into the scheduler.
struct LoadBreakdown {
  double scan_s = 0, load_s = 0, load_cpu_s = 0, decode_s = 0;
  size_t rows = 0;
};
bool TimeLoad(const std::string& dir, LoadBreakdown& b) {
  {
    auto db = SqliteDb::Open(dir + "/squeeze.db");
    if (!db.ok()) return false;
    auto stmt = (*db)->Prepare(
        "SELECT id, owner, state, reason, run_gpus, request FROM jobs "
        "WHERE state IN ('pending', 'running', 'checkpointing') ORDER BY id");
    if (!stmt.ok()) return false;
    const auto start = Clock::now();
    size_t bytes = 0;
    while (true) {
      auto row = stmt->Step();
      if (!row.ok() || !*row) break;
      bytes += stmt->Text(5).size() + stmt->Text(1).size();
      ++b.rows;
    }
    b.scan_s = Seconds(Clock::now() - start);
    if (bytes == 0) return false;
  }
  auto store = JobStore::Open(dir);
  if (!store.ok()) return false;
  const double cpu = CpuSeconds();
  const auto start = Clock::now();
  auto jobs = (*store)->LoadUnfinished();
  b.load_s = Seconds(Clock::now() - start);
  b.load_cpu_s = CpuSeconds() - cpu;
  if (!jobs.ok() || jobs->empty()) return false;
  const std::string text = RequestToJson(jobs->back().request);
  const auto decode_start = Clock::now();
  for (size_t i = 0; i < jobs->size(); ++i) {
    if (!RequestFromJson(text).ok()) return false;
  }
  b.decode_s = Seconds(Clock::now() - decode_start);
  return true;
}

void PrintPercentiles(const char* what, const Percentiles& p) {
  std::printf("  %-34s p50 %7.2f ms   p99 %7.2f ms   max %7.2f ms\n", what, p.p50, p.p99, p.max);
}

json PercentilesJson(const Percentiles& p) {
  return {{"p50_ms", p.p50}, {"p99_ms", p.p99}, {"max_ms", p.max}};
}

// `squeeze queue` as a user runs it (the binary, every page of the waiting jobs, the table
// printed to /dev/null), with `jobs` waiting jobs in the daemon; each run's wall seconds.
std::vector<double> TimeQueueCommand(const Flags& flags, const Daemon& d, int runs) {
  const std::string url = "SQUEEZE_URL=http://127.0.0.1:" + std::to_string(d.port());
  const std::string token = "SQUEEZE_TOKEN=" + d.token();
  std::vector<double> out;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      char* argv[] = {const_cast<char*>(flags.squeeze.c_str()), const_cast<char*>("queue"),
                      nullptr};
      char* envp[] = {const_cast<char*>(url.c_str()), const_cast<char*>(token.c_str()), nullptr};
      execve(argv[0], argv, envp);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
    out.push_back(Seconds(Clock::now() - t0));
  }
  return out;
}

// Part 6: the daemon on a store of N waiting jobs (written through JobStore), then `squeeze
// queue` five times.
int QueuePart(const Flags& flags, const std::string& base, json& out) {
  std::printf("\nsqueeze queue with N waiting jobs (5 runs each, the CLI's wall time):\n");
  std::istringstream list(flags.queue_jobs);
  for (std::string n; std::getline(list, n, ',');) {
    const int jobs = std::atoi(n.c_str());
    const std::string dir = base + "/queue" + n;
    if (!FillStore(dir, jobs)) return 1;
    Daemon d(flags, dir, "full");
    if (!d.Start()) return 1;
    while (d.LineText("took back ").empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::vector<double> s = TimeQueueCommand(flags, d, 5);
    if (s.empty()) {
      std::fprintf(stderr, "serve_bench: squeeze queue failed\n");
      return 1;
    }
    std::sort(s.begin(), s.end());
    std::printf("  %7d waiting: median %.2f s, min %.2f s, max %.2f s\n", jobs, s[s.size() / 2],
                s.front(), s.back());
    out["queue"].push_back({{"waiting", jobs}, {"median_s", s[s.size() / 2]},
                            {"min_s", s.front()}, {"max_s", s.back()}});
    d.Stop();
    std::filesystem::remove_all(dir);
  }
  return 0;
}

int Run(const Flags& flags) {
  const std::string base = flags.dir + "/squeeze_serve_bench_" + std::to_string(getpid());
  json out;
  out["cores"] = std::thread::hardware_concurrency();
  out["squeeze"] = flags.squeeze;
  std::printf("serve_bench: %s, %u cores, TCP_NODELAY on the clients: %s, on the daemon: %s\n",
              flags.squeeze.c_str(), std::thread::hardware_concurrency(),
              flags.nodelay ? "yes" : "no", flags.server_nodelay ? "yes (LD_PRELOAD)" : "no");
  out["client_nodelay"] = flags.nodelay;
  out["server_nodelay"] = flags.server_nodelay;
  int rc = 0;

  for (const std::string sync : {"full", "normal"}) {
    if (!Wanted(flags, "tput") && !Wanted(flags, "paced")) break;
    const std::string dir = base + "/" + sync;
    Daemon d(flags, dir, sync);
    if (!d.Start() || !HoldTheGpu(d)) {
      std::fprintf(stderr, "serve_bench: the daemon (--sync %s) did not come up\n%s",
                   sync.c_str(), d.Log().c_str());
      rc = 1;
      continue;
    }
    std::printf("\n--sync %s (one GPU held by job 1; every submission waits)\n", sync.c_str());
    json& o = out["sync_" + sync];
    if (Wanted(flags, "tput")) {
      const double cpu_before = ProcessCpuSeconds(d.pid());
      const Throughput t = ClosedLoop(d, flags.clients, flags.each);
      const double daemon_cpu = ProcessCpuSeconds(d.pid()) - cpu_before;
      std::printf("  %d clients x %d submissions: %8.0f durable submissions/s  (%.2f s, %d "
                  "errors, %d connections)\n",
                  flags.clients, flags.each, t.per_s, t.wall_s, t.errors, t.connections);
      PrintPercentiles("latency under that load:", t.latency);
      std::printf("  requests over 200 ms: %d (%d of them opened a new connection)\n", t.slow,
                  t.slow_new);
      std::printf("  daemon CPU during these: %.2f s (%.0f us a submission; %u cores)\n",
                  daemon_cpu, 1e6 * daemon_cpu / (flags.clients * flags.each),
                  std::thread::hardware_concurrency());
      o["throughput"] = {{"clients", flags.clients}, {"each", flags.each},
                         {"daemon_cpu_s", daemon_cpu},
                         {"per_s", t.per_s},        {"wall_s", t.wall_s},
                         {"errors", t.errors},      {"connections", t.connections},
                         {"over_200ms", t.slow},    {"over_200ms_new_connection", t.slow_new},
                         {"latency", PercentilesJson(t.latency)}};
      if (t.errors) rc = 1;
    }
    if (Wanted(flags, "paced")) {
      const Paced p = OpenLoop(d, flags.rate, flags.seconds, flags.clients);
      std::printf("  paced %d/s for %.0f s (%d requests, %d errors, %d connections):\n",
                  flags.rate, flags.seconds, p.sent, p.errors, p.connections);
      PrintPercentiles("latency from when it was due:", p.from_due);
      PrintPercentiles("latency from when it was sent:", p.from_send);
      std::printf("  requests over 200 ms from sent: %d (%d of them opened a new connection)\n",
                  p.slow, p.slow_new);
      o["paced"] = {{"rate", flags.rate},        {"seconds", flags.seconds},
                    {"requests", p.sent},        {"errors", p.errors},
                    {"over_200ms", p.slow},      {"over_200ms_new_connection", p.slow_new},
                    {"connections", p.connections},
                    {"from_due", PercentilesJson(p.from_due)},
                    {"from_send", PercentilesJson(p.from_send)}};
      if (p.errors) rc = 1;
    }
    auto [rss, hwm] = Memory(d.pid());
    std::printf("  daemon memory after these: VmRSS %.0f MiB, VmHWM %.0f MiB\n", rss, hwm);
    o["rss_mib"] = rss;
    o["hwm_mib"] = hwm;
    d.Stop();
    std::filesystem::remove_all(dir);
  }

  if (Wanted(flags, "array")) {
    // One submission of a 10,000-task array (one durable transaction), timed from the request
    // to the answer; then until the daemon's queue holds every task (GET of the last task
    // shows its REASON), which takes a step of the daemon's loop.
    const std::string dir = base + "/array";
    Daemon d(flags, dir, "full");
    if (!d.Start() || !HoldTheGpu(d)) {
      std::fprintf(stderr, "serve_bench: the daemon did not come up\n%s", d.Log().c_str());
      return 1;
    }
    auto c = d.Client();
    const std::string body =
        R"({"name": "sweep", "command": ["sleep", "1"], "gpus": 1, "array": "0-)" +
        std::to_string(flags.array_tasks - 1) + R"(%100"})";
    const auto t0 = Clock::now();
    auto res = c->Post("/v1/jobs", body, "application/json");
    const double submit_s = Seconds(Clock::now() - t0);
    if (!res || res->status != 201) {
      std::fprintf(stderr, "serve_bench: the array was refused: %s\n",
                   res ? res->body.c_str() : "no answer");
      return 1;
    }
    const int64_t first = json::parse(res->body)["id"];
    const std::string last = "/v1/jobs/" + std::to_string(first + flags.array_tasks - 1);
    double queued_s = -1;
    for (int i = 0; i < 2000 && queued_s < 0; ++i) {
      auto got = c->Get(last);
      if (got && got->status == 200 && json::parse(got->body)["reason_code"].is_string()) {
        queued_s = Seconds(Clock::now() - t0);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    std::printf("\narray: %d tasks (%%100) submitted in one request: answered in %.3f s "
                "(target <= 1 s); every task queued with a REASON after %.3f s\n",
                flags.array_tasks, submit_s, queued_s);
    out["array"] = {{"tasks", flags.array_tasks}, {"submit_s", submit_s}, {"queued_s", queued_s}};
    auto [rss, hwm] = Memory(d.pid());
    out["array"]["rss_mib"] = rss;
    std::printf("  daemon memory: VmRSS %.0f MiB, VmHWM %.0f MiB\n", rss, hwm);
    if (submit_s > 1.0 || queued_s < 0) rc = 1;
    d.Stop();
    KillLeftovers(dir);
    std::filesystem::remove_all(dir);
  }

  if (Wanted(flags, "restart")) {
    const std::string dir = base + "/restart";
    const auto fill_start = Clock::now();
    if (!FillStore(dir, flags.jobs)) return 1;
    std::printf("\nrestart: %d pending jobs stored through JobStore in %.1f s\n", flags.jobs,
                Seconds(Clock::now() - fill_start));
    json& o = out["restart"];
    o["jobs"] = flags.jobs;
    for (int round = 1; round <= flags.restarts; ++round) {
      Restart r;
      // Start 1 leaves its running job running, so start 2 takes it back; start 2 kills it,
      // so start 3 finds it ended while the daemon was down.
      if (!TimeRestart(flags, dir, /*kill_jobs=*/round != 1, r)) {
        std::fprintf(stderr, "serve_bench: the daemon did not start on the filled store\n");
        return 1;
      }
      std::printf("  start %d: exec -> /healthz %.3f s, -> GET /v1/jobs?limit=1 %.3f s "
                  "(daemon CPU by then %.2f s)\n",
                  round, r.healthz_s, r.list_s, r.cpu_s);
      const size_t said = r.recovered_line.find("took back");
      const std::string recovered =
          said == std::string::npos ? "" : r.recovered_line.substr(said);
      std::printf("    %s\n", recovered.c_str());
      std::printf("    daemon's own lines: 'data in' at %.3f s, 'took back' (recovery done) at "
                  "%.3f s, 'listening' at %.3f s\n",
                  r.data_at, r.loaded_at, r.listening_at);
      std::printf("    memory after start: VmRSS %.0f MiB, VmHWM %.0f MiB\n", r.rss_mib,
                  r.hwm_mib);
      std::printf("    listed %d jobs in pages of 1,000 in %.2f s; then VmRSS %.0f MiB, VmHWM "
                  "%.0f MiB\n",
                  r.listed, r.full_list_s, r.rss_after_list_mib, r.hwm_after_list_mib);
      o["starts"].push_back({{"recovery", r.recovered_line},
                             {"healthz_s", r.healthz_s},
                             {"list_s", r.list_s},
                             {"cpu_s", r.cpu_s},
                             {"data_line_s", r.data_at},
                             {"recovered_line_s", r.loaded_at},
                             {"listening_line_s", r.listening_at},
                             {"rss_mib", r.rss_mib},
                             {"hwm_mib", r.hwm_mib},
                             {"listed", r.listed},
                             {"full_list_s", r.full_list_s},
                             {"rss_after_list_mib", r.rss_after_list_mib},
                             {"hwm_after_list_mib", r.hwm_after_list_mib}});
      if (flags.keep) std::printf("%s", r.log.c_str());
    }
    LoadBreakdown b;
    if (TimeLoad(dir, b)) {
      std::printf("  in this process on the same store: SQL scan of %zu rows %.3f s; "
                  "LoadUnfinished %.3f s (%.3f s CPU); RequestFromJson x %zu alone %.3f s\n",
                  b.rows, b.scan_s, b.load_s, b.load_cpu_s, b.rows, b.decode_s);
      o["load_breakdown"] = {{"rows", b.rows},
                             {"sql_scan_s", b.scan_s},
                             {"load_unfinished_s", b.load_s},
                             {"load_unfinished_cpu_s", b.load_cpu_s},
                             {"request_decode_s", b.decode_s}};
    }
  }
  if (Wanted(flags, "queue") && QueuePart(flags, base, out) != 0) rc = 1;
  if (!flags.json_out.empty()) std::ofstream(flags.json_out) << out.dump(2) << "\n";
  if (const int n = KillLeftovers(base + "/restart") + KillLeftovers(base + "/full") +
                    KillLeftovers(base + "/normal");
      n > 0) {
    std::fprintf(stderr, "serve_bench: killed %d job processes still there at the end\n", n);
  }
  if (!flags.keep) std::filesystem::remove_all(base);
  return rc;
}

}  // namespace
}  // namespace squeeze

int main(int argc, char** argv) {
  squeeze::Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--tcp-nodelay") {
      f.nodelay = true;
      continue;
    }
    if (flag == "--server-nodelay") {
      f.server_nodelay = true;
      continue;
    }
    if (flag == "--keep") {
      f.keep = true;
      continue;
    }
    if (i + 1 == argc) {
      std::fprintf(stderr, "serve_bench: %s needs a value (or is unknown)\n", argv[i]);
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--squeeze") f.squeeze = value;
    else if (flag == "--dir") f.dir = value;
    else if (flag == "--clients") f.clients = std::atoi(value.c_str());
    else if (flag == "--each") f.each = std::atoi(value.c_str());
    else if (flag == "--rate") f.rate = std::atoi(value.c_str());
    else if (flag == "--seconds") f.seconds = std::atof(value.c_str());
    else if (flag == "--jobs") f.jobs = std::atoi(value.c_str());
    else if (flag == "--restarts") f.restarts = std::atoi(value.c_str());
    else if (flag == "--only") f.only = value;
    else if (flag == "--array-tasks") f.array_tasks = std::atoi(value.c_str());
    else if (flag == "--queue-jobs") f.queue_jobs = value;
    else if (flag == "--json") f.json_out = value;
    else {
      std::fprintf(stderr, "serve_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  return squeeze::Run(f);
}
