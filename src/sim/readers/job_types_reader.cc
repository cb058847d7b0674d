#include "sim/readers/job_types_reader.h"

#include <set>

#include "config/file_io.h"
#include "core/hardware.h"
#include "sim/readers/csv.h"

namespace squeeze {
namespace {

constexpr size_t kMaxJobTypes = 10000;

std::string TypesAt(const std::string& source, int line) {
  return source + ":" + std::to_string(line) + ": ";
}

bool TypeComment(const CsvRecord& r) { return !r.fields.empty() && r.fields[0].starts_with("#"); }

}  // namespace

Result<std::vector<JobType>> ParseJobTypes(std::string_view text, const std::string& source) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  CsvReader reader(text, source);
  CsvRecord record;
  do {
    auto more = reader.Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) {
      return Status::Error(source + ": the file is empty; expected the header "
                                    "job_type,multi_gpu,gpu_speeds");
    }
  } while (TypeComment(record));
  const std::vector<std::string_view> header = {"job_type", "multi_gpu", "gpu_speeds"};
  if (record.fields != header) {
    return Status::Error(TypesAt(source, record.line) +
                         "the header must be job_type,multi_gpu,gpu_speeds");
  }
  std::vector<JobType> types;
  std::set<std::string> names;
  while (true) {
    auto more = reader.Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (TypeComment(record)) continue;
    const std::string at = TypesAt(source, record.line);
    if (record.fields.size() != 3) {
      return Status::Error(at + std::to_string(record.fields.size()) +
                           " fields; the header has 3");
    }
    JobType type;
    type.name = std::string(record.fields[0]);
    if (type.name.empty()) return Status::Error(at + "column 'job_type': the value is empty");
    if (!names.insert(type.name).second) {
      return Status::Error(at + "column 'job_type': value '" + type.name + "' is given twice");
    }
    const std::string_view multi = record.fields[1];
    if (multi != "yes" && multi != "no") {
      return Status::Error(at + "column 'multi_gpu': value '" + std::string(multi) +
                           "' is not yes or no");
    }
    type.multi_gpu = multi == "yes";
    auto speeds = ParseGpuSpeeds(record.fields[2]);
    if (!speeds.ok()) return Status::Error(at + "column 'gpu_speeds': " + speeds.status().message());
    type.gpu_speeds = std::move(*speeds);
    types.push_back(std::move(type));
    if (types.size() > kMaxJobTypes) {
      return Status::Error(at + "more than " + std::to_string(kMaxJobTypes) + " job types");
    }
  }
  if (types.empty()) return Status::Error(source + ": no job types after the header");
  return types;
}

Result<std::vector<JobType>> ReadJobTypes(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseJobTypes(*text, path);
}

}  // namespace squeeze
