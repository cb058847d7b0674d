#include "bench/slurm_bench_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "exec/command_runner.h"

namespace squeeze::bench {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double ProcessCpuSeconds(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream in(stat.substr(paren + 2));
  std::string field;
  double cpu = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {  // fields 14 and 15: utime, stime
    if (i == 14 || i == 15) cpu += std::atof(field.c_str());
  }
  return cpu / sysconf(_SC_CLK_TCK);
}

double Metric(const std::string& text, const std::string& name) {
  double sum = -1;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) != 0 || (line[name.size()] != ' ' && line[name.size()] != '{')) continue;
    sum = std::max(sum, 0.0) + std::atof(line.c_str() + line.rfind(' ') + 1);
  }
  return sum;
}

SlurmBenchCluster::SlurmBenchCluster(SlurmBenchClusterOptions options)
    : options_(std::move(options)) {
  setenv("SQUEEZE_SLURM_ROOT", options_.root.c_str(), 1);
  setenv("SQUEEZE_SLURM_CLUSTERS", kBenchCluster, 1);
  setenv("SQUEEZE_SLURM_PORT_BASE", std::to_string(options_.port_base).c_str(), 1);
  setenv("SQUEEZE_SLURM_GPUS", std::to_string(options_.gpus).c_str(), 1);
  setenv("SQUEEZE_SLURM_CPUS", std::to_string(options_.gpus).c_str(), 1);
}

SlurmBenchCluster::~SlurmBenchCluster() {
  if (started_ && !options_.keep) (void)Script("stop");
}

bool SlurmBenchCluster::Start() { return started_ = Script("start"); }

std::string SlurmBenchCluster::Conf() const {
  return options_.root + "/" + kBenchCluster + "/etc/slurm.conf";
}

std::string SlurmBenchCluster::Jobcomp() const {
  return options_.root + "/" + kBenchCluster + "/log/jobcomp.txt";
}

pid_t SlurmBenchCluster::Ctld() const {
  return std::atoi(ReadFile(options_.root + "/" + kBenchCluster + "/run/slurmctld.pid").c_str());
}

bool SlurmBenchCluster::Script(const std::string& verb) const {
  return std::system(("bash '" + options_.script + "' " + verb).c_str()) == 0;
}

SlurmBenchDaemon::SlurmBenchDaemon(std::string binary, std::string dir)
    : binary_(std::move(binary)), dir_(std::move(dir)) {}

bool SlurmBenchDaemon::Start(const std::string& conf) {
  std::filesystem::create_directories(dir_ + "/data");
  std::ofstream(dir_ + "/cluster.yaml")
      << "pools:\n  - name: " << kBenchCluster << "\n    backend: slurm\n    slurm: {cluster: "
      << kBenchCluster << ", conf: " << conf << "}\n";
  const std::vector<std::string> args = {binary_, "serve", "--config", dir_ + "/cluster.yaml",
                                         "--data", data(), "--listen", "127.0.0.1:0",
                                         // The admin token is root's: its jobs run as root.
                                         "--allow-root-jobs"};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    const int fd = open((dir_ + "/serve.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const std::string url_file = data() + "/serve.url";
  for (int i = 0; i < 1200 && !std::filesystem::exists(url_file); ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string url = ReadFile(url_file);
  port_ = url.empty() ? 0 : std::atoi(url.substr(url.rfind(':') + 1).c_str());
  std::istringstream(ReadFile(data() + "/admin.token")) >> token_;
  if (!user_token_.empty()) token_ = user_token_;
  if (port_ > 0 && !token_.empty()) return true;
  std::fprintf(stderr, "slurm_bench: the daemon did not start:\n%s\n",
               ReadFile(dir_ + "/serve.log").c_str());
  return false;
}

bool SlurmBenchDaemon::UseTokenOf(const std::string& user) {
  std::filesystem::create_directories(data());
  auto out = RunCommand({binary_, "token", "add", user, "bench", "--data", data()});
  std::string token;
  if (out.ok() && out->exit_code == 0) std::istringstream(out->out) >> token;
  if (token.empty()) {
    std::fprintf(stderr, "slurm_bench: no token for user %s: %s\n", user.c_str(),
                 out.ok() ? out->err.c_str() : out.status().message().c_str());
    return false;
  }
  user_token_ = token;
  return true;
}

std::unique_ptr<httplib::Client> SlurmBenchDaemon::Client() const {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  c->set_read_timeout(120, 0);
  c->set_bearer_token_auth(token_);
  return c;
}

void SlurmBenchDaemon::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 200 && waitpid(pid_, nullptr, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (waitpid(pid_, nullptr, WNOHANG) == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

}  // namespace squeeze::bench
