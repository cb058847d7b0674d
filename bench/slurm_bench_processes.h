// What slurm_bench starts and stops: its own one-node Slurm cluster (through
// scripts/slurm-clusters.sh, with its own root, ports and munged) and a `squeeze serve` with
// one Slurm pool on it. Each object owns its processes and stops them when destroyed (the
// cluster is left up with keep). Not thread-safe; Client() may be called from any thread.
#ifndef SQUEEZE_BENCH_SLURM_BENCH_PROCESSES_H_
#define SQUEEZE_BENCH_SLURM_BENCH_PROCESSES_H_

#include <sys/types.h>

#include <httplib.h>

#include <memory>
#include <string>

namespace squeeze::bench {

inline constexpr const char* kBenchCluster = "bench";

std::string ReadFile(const std::string& path);
// User + system CPU seconds process `pid` has used; 0 if it is gone.
double ProcessCpuSeconds(pid_t pid);
// The sum of a Prometheus metric's samples in `text` (every label set); -1 if absent.
double Metric(const std::string& text, const std::string& name);

struct SlurmBenchClusterOptions {
  std::string script;  // scripts/slurm-clusters.sh
  std::string root;    // SQUEEZE_SLURM_ROOT
  int port_base = 0;   // SQUEEZE_SLURM_PORT_BASE
  int gpus = 0;        // SQUEEZE_SLURM_GPUS and SQUEEZE_SLURM_CPUS
  bool keep = false;   // leave it running at the end
};

// The cluster "bench". The script's variables are set in this process's environment.
class SlurmBenchCluster {
 public:
  explicit SlurmBenchCluster(SlurmBenchClusterOptions options);
  ~SlurmBenchCluster();
  bool Start();
  std::string Conf() const;
  std::string Jobcomp() const;  // jobcomp/filetxt: one line per ended job
  pid_t Ctld() const;

 private:
  bool Script(const std::string& verb) const;
  SlurmBenchClusterOptions options_;
  bool started_ = false;
};

// `squeeze serve --config DIR/cluster.yaml --data DIR/data`, its output in DIR/serve.log.
class SlurmBenchDaemon {
 public:
  SlurmBenchDaemon(std::string binary, std::string dir);
  ~SlurmBenchDaemon() { Stop(); }
  // Writes the one-pool cluster file for `conf` and starts the daemon; false (and its log on
  // stderr) if it does not listen within 60 s.
  bool Start(const std::string& conf);
  // Before Start: the clients will use a new token of Unix account `user` (squeeze token
  // add); false (and why on stderr) when it cannot be had.
  bool UseTokenOf(const std::string& user);
  // A keep-alive client with TCP_NODELAY and the admin token (or UseTokenOf's).
  std::unique_ptr<httplib::Client> Client() const;
  void Stop();  // SIGTERM, SIGKILL after 10 s
  pid_t pid() const { return pid_; }
  std::string data() const { return dir_ + "/data"; }

 private:
  const std::string binary_;
  const std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string token_;
  std::string user_token_;
};

}  // namespace squeeze::bench

#endif  // SQUEEZE_BENCH_SLURM_BENCH_PROCESSES_H_
