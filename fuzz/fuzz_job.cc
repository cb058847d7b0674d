// libFuzzer target: a job as submitted, a YAML job file or a JSON body (the first byte picks),
// through the reader the daemon uses (config/job_file.h). An input it accepts must survive being
// written back as JSON and read again (config/job_json_writer.h).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/job_file.h"
#include "config/job_json_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  constexpr squeeze::Time kNow = squeeze::Seconds(1780000000);
  const auto job = data[0] % 2 == 0 ? squeeze::ParseJobYaml(text, "job.yaml", kNow)
                                    : squeeze::ParseJobJson(text, kNow);
  if (!job.ok()) return 0;
  squeeze::JobRequest submitted = *job;  // as `squeeze submit` sends it: a full workdir
  if (!submitted.workdir.empty() && submitted.workdir[0] != '/') {
    submitted.workdir = "/" + submitted.workdir;
  }
  const std::string again = squeeze::JobRequestToJobJson(submitted);
  if (!squeeze::ParseJobJson(again, kNow).ok()) std::abort();  // written, then not readable
  return 0;
}
