// Object storage for a job's checkpoints (job file `checkpoint_store`): where they go, how the
// job reaches the store, and what the upload adds to a checkpoint's cost. squeeze never holds
// the credentials: the job's own process reads them as its owner (a file the owner names, or
// its default chain: AWS_* variables, ~/.aws). Pure functions; thread-safe.
#ifndef SQUEEZE_CORE_CHECKPOINT_STORE_H_
#define SQUEEZE_CORE_CHECKPOINT_STORE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct CheckpointStore {
  std::string url;          // s3://BUCKET[/PREFIX]; empty = no store
  std::string endpoint;     // http(s)://HOST[:PORT][/PATH]; empty = the provider's default
  std::string region;       // empty = the client's default
  std::string credentials;  // absolute path of a credentials file the job reads; empty = default chain
  std::string profile;      // the section of that file; empty = [default]
  int keep = 3;             // complete checkpoints kept in the store
  int64_t checkpoint_bytes = 0;  // what one checkpoint uploads (0 = unknown)
  double upload_gbps = 1;        // gigabits per second from the job's nodes to the store
  // The most the job's uploads may take of its nodes' network (the helper caps its transfers
  // at it); 0 = no cap.
  double max_upload_gbps = 0;

  bool named() const { return !url.empty(); }
};

// Checks of each part, with the value in the message (the caller names the field).
Status CheckStoreUrl(std::string_view url);       // s3://BUCKET[/PREFIX], bucket per S3's rules
Status CheckStoreEndpoint(std::string_view url);  // http:// or https:// and a host

// How long one upload takes: checkpoint_bytes * 8 / (gbps * 1e9) seconds, rounded up to a whole
// second, at upload_gbps or max_upload_gbps, whichever is lower.
Time UploadSeconds(const CheckpointStore& store);

// What the job's environment gets for job `id`: SQUEEZE_CHECKPOINT_STORE (the URL with the job
// id appended, so that each job, each array task, has its own and a resumed run finds its own),
// SQUEEZE_CHECKPOINT_STORE_ENDPOINT, _REGION, _CREDENTIALS, _PROFILE, _KEEP and _MAX_GBPS as
// set. Empty
// when no store is named.
std::map<std::string, std::string> CheckpointStoreEnvironment(JobId id,
                                                              const CheckpointStore& store);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_CHECKPOINT_STORE_H_
