#include "slurm/job_text.h"

#include <cctype>
#include <charconv>
#include <ctime>
#include <string>

namespace squeeze::slurm_text {
namespace {

std::string Quote(std::string_view s) {
  std::string quoted(1, '\'');
  quoted.append(s);
  quoted += '\'';
  return quoted;
}

bool IsKeyWord(std::string_view word) {
  const size_t eq = word.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  if (!std::isupper(static_cast<unsigned char>(word[0]))) return false;  // Slurm's keys
  for (size_t i = 0; i < eq; ++i) {
    const char c = word[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':' && c != '/') {
      return false;
    }
  }
  return true;
}

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

const std::string* Find(const KeyValues& pairs, std::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return &v;
  }
  return nullptr;
}

Status ReadTime(const KeyValues& pairs, const char* key, std::optional<int64_t>* out) {
  const std::string* value = Find(pairs, key);
  if (value == nullptr) return Status::Ok();
  Result<std::optional<int64_t>> time = ParseTime(*value);
  if (!time.ok()) return time.status().WithContext(key);
  *out = *time;
  return Status::Ok();
}

Status ReadNumbers(const KeyValues& pairs, SlurmJob* job) {
  if (const std::string* v = Find(pairs, "Restarts"); v && !ParseNumber(*v, &job->restart_count)) {
    return Status::Error("Restarts: " + Quote(*v) + " is not a number");
  }
  if (const std::string* v = Find(pairs, "Requeue")) {
    if (*v != "0" && *v != "1") return Status::Error("Requeue: " + Quote(*v) + " is not 0 or 1");
    job->requeue = *v == "1";
  }
  if (const std::string* v = Find(pairs, "ExitCode")) {
    Result<int> code = ParseExitCode(*v);
    if (!code.ok()) return code.status().WithContext("ExitCode");
    if (SlurmStateEnded(job->state)) job->exit_code = *code;
  }
  std::optional<int64_t> submit;
  std::optional<int64_t> start;
  std::optional<int64_t> end;
  for (Status s : {ReadTime(pairs, "SubmitTime", &submit), ReadTime(pairs, "StartTime", &start),
                   ReadTime(pairs, "EndTime", &end)}) {
    if (!s.ok()) return s;
  }
  job->submit_time = submit.value_or(0);
  if (job->state != "PENDING") job->start_time = start;
  if (SlurmStateEnded(job->state)) job->end_time = end;
  for (const auto& [key, value] : pairs) {
    if (key != "GRES") continue;
    Result<std::vector<int>> indices = ParseGresIndices(value);
    if (!indices.ok()) return indices.status().WithContext("GRES");
    job->gpu_indices.insert(job->gpu_indices.end(), indices->begin(), indices->end());
  }
  return Status::Ok();
}

}  // namespace

KeyValues SplitKeyValues(std::string_view text) {
  KeyValues pairs;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (end == i) break;
    const std::string_view word = text.substr(i, end - i);
    if (IsKeyWord(word)) {
      const size_t eq = word.find('=');
      std::string value(word.substr(eq + 1));
      pairs.emplace_back(std::string(word.substr(0, eq)), value == "(null)" ? "" : value);
    } else if (!pairs.empty()) {
      std::string& value = pairs.back().second;
      if (!value.empty()) value += ' ';
      value += word;
    }
    i = end;
  }
  return pairs;
}

Result<int> ParseExitCode(std::string_view text) {
  const size_t colon = text.find(':');
  int code = 0;
  int signal = 0;
  if (colon == std::string_view::npos || !ParseNumber(text.substr(0, colon), &code) ||
      !ParseNumber(text.substr(colon + 1), &signal) || code < 0 || code > 255 || signal < 0 ||
      signal > 127) {
    return Status::Error(Quote(text) + " is not EXIT:SIGNAL like 3:0 or 0:9");
  }
  return signal != 0 ? 128 + signal : code;
}

Result<std::optional<int64_t>> ParseTime(std::string_view text) {
  if (text.empty() || text == "Unknown" || text == "None" || text == "N/A") {
    return std::optional<int64_t>();
  }
  std::tm tm{};
  const bool shape = text.size() == 19 && text[4] == '-' && text[7] == '-' && text[10] == 'T' &&
                     text[13] == ':' && text[16] == ':';
  const bool ok = shape && ParseNumber(text.substr(0, 4), &tm.tm_year) &&
                  ParseNumber(text.substr(5, 2), &tm.tm_mon) &&
                  ParseNumber(text.substr(8, 2), &tm.tm_mday) &&
                  ParseNumber(text.substr(11, 2), &tm.tm_hour) &&
                  ParseNumber(text.substr(14, 2), &tm.tm_min) &&
                  ParseNumber(text.substr(17, 2), &tm.tm_sec) && tm.tm_mon >= 1 &&
                  tm.tm_mon <= 12 && tm.tm_mday >= 1 && tm.tm_mday <= 31 && tm.tm_hour <= 23 &&
                  tm.tm_min <= 59 && tm.tm_sec <= 60;
  if (!ok) return Status::Error(Quote(text) + " is not a time like 2026-11-30T09:44:07");
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) {
    return Status::Error(Quote(text) + " is not a time this machine can represent");
  }
  return std::optional<int64_t>(static_cast<int64_t>(t));
}

Result<SlurmJob> JobFromKeyValues(const KeyValues& pairs) {
  SlurmJob job;
  const std::string* id = Find(pairs, "JobId");
  if (id == nullptr) return Status::Error("JobId is missing");
  if (!ParseNumber(*id, &job.id) || job.id <= 0) {
    return Status::Error("JobId: " + Quote(*id) + " is not a job id");
  }
  const std::string* state = Find(pairs, "JobState");
  if (state == nullptr) return Status::Error("JobState is missing");
  job.state = state->substr(0, state->find(' '));  // "CANCELLED by 0" -> "CANCELLED"
  if (job.state.empty()) return Status::Error("JobState: '' is not a job state");
  const std::string* name = Find(pairs, "JobName");
  if (name == nullptr) name = Find(pairs, "Name");
  if (name != nullptr) job.name = *name;
  const std::pair<const char*, std::string*> strings[] = {
      {"Reason", &job.reason},   {"Partition", &job.partition}, {"NodeList", &job.nodes},
      {"Comment", &job.comment}, {"WorkDir", &job.workdir}};
  for (const auto& [key, out] : strings) {
    if (const std::string* v = Find(pairs, key)) *out = *v;
  }
  Status s = ReadNumbers(pairs, &job);
  if (!s.ok()) return s;
  return job;
}

}  // namespace squeeze::slurm_text
