#include "exec/local_run_env.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "core/checkpoint_store.h"
#include "exec/command_runner.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

std::string JoinIndices(const std::vector<int>& gpus) {
  std::string out;
  for (int g : gpus) {
    if (!out.empty()) out.push_back(',');
    out.append(std::to_string(g));
  }
  return out;
}

// Whether nothing listens on (or holds) `port` on any address of this machine.
bool PortIsFree(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;  // cannot tell: take it
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

// What a batch script reads of Slurm's, as sbatch would set it for this run on this node.
void SlurmVariables(JobId id, int attempt, const JobRequest& request, const std::vector<int>& gpus,
                    const std::string& node, std::map<std::string, std::string>& env) {
  const JobSpec& spec = request.spec;
  const int tasks = std::max(1, request.tasks);
  const std::string job_id = std::to_string(id);
  env["SLURM_JOB_ID"] = env["SLURM_JOBID"] = job_id;
  env["SLURM_JOB_NAME"] = spec.name;
  env["SLURM_JOB_NODELIST"] = env["SLURM_NODELIST"] = node;
  env["SLURMD_NODENAME"] = node;
  env["SLURM_JOB_NUM_NODES"] = env["SLURM_NNODES"] = "1";
  env["SLURM_NTASKS"] = env["SLURM_NPROCS"] = std::to_string(tasks);
  env["SLURM_TASKS_PER_NODE"] = std::to_string(tasks);
  env["SLURM_NODEID"] = env["SLURM_PROCID"] = env["SLURM_LOCALID"] = "0";
  if (spec.cpu_milli > 0) {
    const int64_t cpus = std::max<int64_t>(1, spec.cpu_milli / 1000);
    env["SLURM_CPUS_ON_NODE"] = std::to_string(cpus);
    env["SLURM_CPUS_PER_TASK"] = std::to_string(std::max<int64_t>(1, cpus / tasks));
  }
  if (!gpus.empty()) {
    env["SLURM_GPUS_ON_NODE"] = std::to_string(gpus.size());
    env["SLURM_JOB_GPUS"] = JoinIndices(gpus);
  }
  env["SLURM_SUBMIT_DIR"] = request.workdir;
  env["SLURM_SUBMIT_HOST"] = node;
  if (!spec.pool.empty()) env["SLURM_JOB_PARTITION"] = spec.pool;
  if (!spec.user.empty()) env["SLURM_JOB_USER"] = spec.user;
  env["SLURM_RESTART_COUNT"] = std::to_string(std::max(0, attempt - 1));
  env["SLURM_CLUSTER_NAME"] = "squeeze-local";
}

}  // namespace

std::string ShortHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

LocalRunPlace PlaceOfRun(const std::string& data_dir, JobId id) {
  LocalRunPlace place{ShortHostName(), "", FreeMasterPort(id)};
  if (Result<std::string> tools = InstallLocalSlurmTools(data_dir); tools.ok()) {
    place.tools_dir = *tools;
  }
  return place;
}

int FreeMasterPort(JobId id) {
  const int first = 20000 + static_cast<int>(id % 40000);
  for (int i = 0; i < 200; ++i) {
    const int port = 20000 + (first - 20000 + i) % 40000;
    if (PortIsFree(port)) return port;
  }
  return first;
}

std::vector<std::string> LocalJobEnvironment(JobId id, int attempt, const JobRequest& request,
                                             const std::vector<int>& gpus, bool resume,
                                             const std::string& checkpoint_dir,
                                             const LocalRunPlace& place) {
  std::map<std::string, std::string> env;
  if (!request.run_as.empty()) env = OwnerBaseEnvironment();
  for (const auto& [k, v] : request.env) env[k] = v;
  env["SQUEEZE_JOB_ID"] = std::to_string(id);
  env["SQUEEZE_ATTEMPT"] = std::to_string(attempt);
  env["SQUEEZE_CHECKPOINT_DIR"] = checkpoint_dir;
  for (auto& [k, v] : CheckpointStoreEnvironment(id, request.checkpoint_store)) env[k] = v;
  env["CUDA_VISIBLE_DEVICES"] = JoinIndices(gpus);
  // PyTorch's launcher, as on a Slurm pool (docs/serve.md, "Distributed jobs"): one node.
  const std::string port = std::to_string(place.master_port);
  env["SQUEEZE_NNODES"] = "1";
  env["SQUEEZE_NODE_RANK"] = "0";
  env["SQUEEZE_NODELIST"] = place.node;
  env["SQUEEZE_GPUS_PER_NODE"] = std::to_string(gpus.size());
  env["SQUEEZE_WORLD_SIZE"] = std::to_string(std::max<size_t>(1, gpus.size()));
  env["SQUEEZE_MASTER_ADDR"] = env["MASTER_ADDR"] = env["PET_MASTER_ADDR"] = "127.0.0.1";
  env["SQUEEZE_MASTER_PORT"] = env["MASTER_PORT"] = env["PET_MASTER_PORT"] = port;
  SlurmVariables(id, attempt, request, gpus, place.node, env);
  if (!place.tools_dir.empty()) {
    // srun and scontrol start a batch script's tasks here; the job's own PATH after them.
    const auto path = env.find("PATH");
    env["PATH"] = place.tools_dir + (path == env.end() || path->second.empty()
                                         ? std::string(":/usr/local/bin:/usr/bin:/bin")
                                         : ":" + path->second);
  }
  std::vector<std::string> out;
  if (request.run_as.empty()) {
    out = EnvironmentWith(env);
  } else {
    for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  }
  // Set only by squeeze for this run, never inherited from the daemon.
  std::erase_if(out, [](const std::string& e) { return e.rfind("SQUEEZE_RESUME=", 0) == 0; });
  if (resume) out.push_back("SQUEEZE_RESUME=1");
  return out;
}

}  // namespace squeeze
