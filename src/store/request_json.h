// JobRequest <-> JSON text, the form the store keeps a request in (nlohmann stays private to
// the store). Field names follow the struct; absent fields read as their defaults.
#ifndef SQUEEZE_STORE_REQUEST_JSON_H_
#define SQUEEZE_STORE_REQUEST_JSON_H_

#include <string>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"

namespace squeeze {

std::string RequestToJson(const JobRequest& request);
// Text that is not UTF-8 (a row written by hand or by an older squeeze) is read with U+FFFD in
// place of its broken bytes.
Result<JobRequest> RequestFromJson(const std::string& text);

// GPU index lists as compact JSON arrays ("[0,3]").
std::string GpusToJson(const std::vector<int>& gpus);
Result<std::vector<int>> GpusFromJson(const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_STORE_REQUEST_JSON_H_
