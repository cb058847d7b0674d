// What a run on a local pool finds in its environment, so that a Slurm batch script and a
// PyTorch launcher work there as they do on a Slurm pool: squeeze's own variables, the SLURM_*
// a batch script reads (job id, name, node list, tasks, CPUs per task, submit dir, array),
// the launcher's (SQUEEZE_MASTER_ADDR/PORT, MASTER_ADDR/PORT and torchrun's PET_MASTER_*) with
// a port no other run holds, and `srun` and `scontrol show hostnames` that start a script's
// tasks on this node (docs/serve.md, "A local pool's Slurm variables").
#ifndef SQUEEZE_EXEC_LOCAL_RUN_ENV_H_
#define SQUEEZE_EXEC_LOCAL_RUN_ENV_H_

#include <string>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// Where and how a local run runs, besides its job.
struct LocalRunPlace {
  std::string node;        // this machine's short host name: the run's SLURM_JOB_NODELIST
  std::string tools_dir;   // DATA/bin (srun, scontrol), put first on its PATH; "" for none
  int master_port = 0;     // FreeMasterPort's
};

// The daemon's environment (another user's run: OwnerBaseEnvironment), then the job's, then
// squeeze's own variables, which win. It is data for the supervisor, applied only by the
// process that has become the job's account.
std::vector<std::string> LocalJobEnvironment(JobId id, int attempt, const JobRequest& request,
                                             const std::vector<int>& gpus, bool resume,
                                             const std::string& checkpoint_dir,
                                             const LocalRunPlace& place);

// A TCP port for the run's rank 0 that nothing on this machine listens on now: from
// 20000 + id % 40000 (the port a Slurm run of the same job gets), the next free one. Two local
// torchrun jobs no longer meet on torchrun's default 29500.
int FreeMasterPort(JobId id);

// This machine, a free port, and DATA/bin's tools (none when they cannot be written: the run
// still starts, and a script that calls srun says it cannot find it).
LocalRunPlace PlaceOfRun(const std::string& data_dir, JobId id);

// Writes DATA/bin/srun and DATA/bin/scontrol (mode 0755, the daemon's: no user may change
// them) once per process; returns the folder.
Result<std::string> InstallLocalSlurmTools(const std::string& data_dir);

// The short host name of this machine ("localhost" when it has none).
std::string ShortHostName();

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_LOCAL_RUN_ENV_H_
