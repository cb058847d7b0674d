// The job file's `checkpoint_store` (core/checkpoint_store.h): an s3:// URL, or a map of url,
// endpoint, region, credentials, profile, keep, checkpoint_size, upload_gbps and max_upload_gbps. Messages name
// the field (checkpoint_store.keep) and the value.
#ifndef SQUEEZE_CONFIG_JOB_CHECKPOINT_STORE_H_
#define SQUEEZE_CONFIG_JOB_CHECKPOINT_STORE_H_

#include <string>

#include "config/job_tree.h"
#include "core/checkpoint_store.h"
#include "core/status.h"

namespace squeeze {

// `source` names the document in messages where a node has no position (JSON bodies).
Result<CheckpointStore> ReadCheckpointStore(const JobNode& node, const std::string& source);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_CHECKPOINT_STORE_H_
