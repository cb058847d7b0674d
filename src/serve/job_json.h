// A stored job as the API shows it (docs/serve.md "Job JSON"): its profile, its state and the
// figures scripts rely on (state, exit_code, attempts, preemptions, last_checkpoint). Pure;
// thread-safe.
#ifndef SQUEEZE_SERVE_JOB_JSON_H_
#define SQUEEZE_SERVE_JOB_JSON_H_

#include <nlohmann/json.hpp>

#include "store/stored_job.h"

namespace squeeze {

// `now` gives a waiting job's wait so far. Its environment is only counted ("env" null,
// "env_count" N for those who may see it; its values: JobEnvironmentJson). Times are RFC 3339 UTC strings; durations seconds.
// `private_fields`: its command, workdir and env (the owner's and admins' to see); without
// them these are null and "private" is true, and "reason" is the one every user sees (never
// its detail: StoredJob::reason_detail). `run_nodes`: the names of the nodes its current or
// last run holds (`run_gpus`), as the cluster names them.
nlohmann::json StoredJobJson(const StoredJob& job, Time now, bool private_fields = true,
                             const std::vector<std::string>& run_nodes = {});

// GET /v1/jobs/ID/env, for its owner and the admins: {"id", "env": {NAME: value},
// "details_purged_at"}.
nlohmann::json JobEnvironmentJson(const StoredJob& job);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_JOB_JSON_H_
