#include "cli/job_show_format.h"

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "cli/client_format.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

bool g_utc = false;

bool Has(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && !j[key].is_null();
}

// A value as scontrol prints one: text as it is, a list comma-joined, "-" for none; control
// characters escaped (what a user chose never reaches a terminal raw).
std::string Val(const nlohmann::json& j, const char* key) {
  if (!Has(j, key)) return "-";
  const nlohmann::json& v = j[key];
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return EscapeControls(v.get_ref<const std::string&>());
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ",") + (e.is_string() ? EscapeControls(e.get<std::string>()) : e.dump());
    return out.empty() ? "-" : out;
  }
  return EscapeControls(v.dump());
}

std::string When(const nlohmann::json& j, const char* key) {
  return Has(j, key) && j[key].is_string() ? ShownTime(j[key].get<std::string>()) : "-";
}

std::string Duration(const nlohmann::json& j, const char* key) {
  return Has(j, key) ? ShortDuration(j[key]) : "-";
}

// A word as a shell would need it written: as it is when plain, else in single quotes.
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-.,/:=+@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Command(const nlohmann::json& job) {
  if (!Has(job, "command") || !job["command"].is_array()) return "(private)";
  const nlohmann::json& words = job["command"];
  std::string out;
  for (const auto& w : words) {
    if (!w.is_string()) continue;
    std::string word = ShellWord(w.get<std::string>());
    // A batch script's text is the command's third word: named, not printed whole.
    if (word.size() > 200) word = fmt::format("<{} bytes>", w.get_ref<const std::string&>().size());
    out += (out.empty() ? "" : " ") + word;
  }
  return out.empty() ? "-" : EscapeControls(out);
}

std::string Private(const nlohmann::json& job, const char* key) {
  return job.value("private", false) ? "(private)" : Val(job, key);
}

std::string Gpus(const nlohmann::json& job) {
  if (Has(job, "gpus_range") && job["gpus_range"].is_string()) {  // elastic: width of its run
    const bool ran = Has(job, "run_gpus") && job["run_gpus"].is_array() && !job["run_gpus"].empty();
    return fmt::format("{} (elastic {}, step {}, scaling {})",
                       ran ? std::to_string(job["run_gpus"].size()) : Val(job, "gpus"),
                       Val(job, "gpus_range"), Val(job, "gpus_step"), Val(job, "scaling"));
  }
  std::string gpus = Val(job, "gpus");
  if (Has(job, "gpu_milli") && job["gpu_milli"].is_number() && job["gpu_milli"].get<int>() < 1000) {
    gpus += fmt::format(" ({} thousandths of a card)", job["gpu_milli"].get<int>());
  }
  return gpus;
}

// An elastic job's GPU-hours, and at each width it ran at; "" for any other job.
std::string ElasticGpuHours(const nlohmann::json& job) {
  if (!Has(job, "gpu_hours_by_width") || !job["gpu_hours_by_width"].is_object()) return "";
  return fmt::format("   GpuHours={} ByWidth={}\n", Val(job, "gpu_hours"),
                     GpuHoursByWidth(job["gpu_hours_by_width"]));
}

std::string Memory(const nlohmann::json& job, const char* key = "memory_mib") {
  if (!Has(job, key) || !job[key].is_number()) return "-";
  const int64_t mib = job[key].get<int64_t>();
  return mib % 1024 == 0 ? fmt::format("{}G", mib / 1024) : fmt::format("{}M", mib);
}

// The cards it asks for, when it asks: the least memory of each, and its own speed on each
// model ("" for a job that asks neither).
std::string CardNeeds(const nlohmann::json& job) {
  const bool speeds = Has(job, "gpu_speeds") && job["gpu_speeds"].is_object();
  if (!Has(job, "gpu_memory_mib") && !speeds) return "";
  std::string text = speeds ? "" : "the cluster's";
  if (speeds) {
    for (const auto& [model, speed] : job["gpu_speeds"].items()) {
      text += (text.empty() ? "" : ",") + EscapeControls(model) + ":" +
              (speed.is_number() ? fmt::format("{:g}", speed.get<double>()) : "?");
    }
  }
  const std::string memory = Has(job, "gpu_memory_mib") ? Memory(job, "gpu_memory_mib") : "any";
  return fmt::format("   GpuMemory={} GpuSpeeds={}\n", memory, text);
}

// Where a job of several nodes may go, when it asks for more than the default ("" else).
std::string TopologyNeeds(const nlohmann::json& job) {
  if (!Has(job, "topology") || !job["topology"].is_string()) return "";
  const std::string t = job["topology"].get<std::string>();
  return t == "preferred" ? "" : "   Topology=" + EscapeControls(t) + "\n";
}

// Where its checkpoints go, its command, workdir and output files (its owner's and the
// admins' to see).
std::string HowItRuns(const nlohmann::json& job) {
  std::string out;
  const auto line = [&](const std::string& text) { out += "   " + text + "\n"; };
  if (Has(job, "checkpoint_dir")) line("CheckpointDir=" + Val(job, "checkpoint_dir"));
  if (Has(job, "checkpoint_store")) line("CheckpointStore=" + Val(job["checkpoint_store"], "url"));
  line("Command=" + Command(job));
  line("WorkDir=" + Private(job, "workdir"));
  line(fmt::format("StdOut={} StdErr={}",
                   job.value("private", false) ? "(private)"
                   : Has(job, "output")        ? Val(job, "output")
                                               : "the run's log (squeeze logs " + Val(job, "id") + ")",
                   job.value("private", false) ? "(private)"
                   : Has(job, "error")         ? Val(job, "error")
                                               : "with StdOut"));
  return out;
}

std::string Environment(const nlohmann::json& job, const nlohmann::json* env) {
  if (job.value("private", false)) return "   Environment=(private)\n";
  const int64_t count = Has(job, "env_count") && job["env_count"].is_number_integer()
                            ? job["env_count"].get<int64_t>()
                            : 0;
  const std::string id = Val(job, "id");
  if (env == nullptr || !env->is_object() || !env->contains("env")) {
    if (count == 0) return "   Environment=none\n";
    return fmt::format("   Environment={} variable{} (values hidden: squeeze show {} --env)\n", count,
                       count == 1 ? "" : "s", id);
  }
  std::string out = fmt::format("   Environment={} variable{}\n", count, count == 1 ? "" : "s");
  for (const auto& [name, value] : (*env)["env"].items()) {
    out += fmt::format("      {}={}\n", EscapeControls(name),
                       value.is_string() ? EscapeControls(value.get<std::string>()) : value.dump());
  }
  return out;
}

}  // namespace

void SetShownTimesUtc(bool utc) { g_utc = utc; }

std::string GpuHoursByWidth(const nlohmann::json& by_width) {
  std::map<long, double, std::greater<>> widths;
  if (by_width.is_object()) {
    for (const auto& [key, hours] : by_width.items()) {
      char* end = nullptr;
      const long width = std::strtol(key.c_str(), &end, 10);
      if (*end == '\0' && width > 0 && hours.is_number()) widths[width] += hours.get<double>();
    }
  }
  std::string out;
  for (const auto& [width, hours] : widths) {
    out += fmt::format("{}{} GPU{} {:.2f}", out.empty() ? "" : ", ", width, width == 1 ? "" : "s",
                       hours);
  }
  return out.empty() ? "-" : out;
}

std::optional<int64_t> ApiTimeSeconds(const std::string& rfc3339) {
  std::tm tm{};
  // "2026-11-30T08:51:53Z", as the API writes every time.
  if (rfc3339.size() != 20 || rfc3339.back() != 'Z' ||
      sscanf(rfc3339.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
             &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm));
}

std::string ShownTime(const std::string& rfc3339) {
  const std::optional<int64_t> seconds = ApiTimeSeconds(rfc3339);
  if (!seconds) return EscapeControls(rfc3339);
  if (g_utc) return rfc3339;
  const time_t t = static_cast<time_t>(*seconds);
  std::tm local{};
  localtime_r(&t, &local);
  char out[32];
  strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%S", &local);
  return out;
}

std::string ShownTimesIn(const std::string& text) {
  // YYYY-MM-DDTHH:MM:SSZ: 20 characters, digits but at 4, 7, 10, 13, 16 and 19.
  constexpr size_t kLength = 20;
  auto api_time_at = [&](size_t i) {
    if (i + kLength > text.size()) return false;
    for (size_t k = 0; k < kLength; ++k) {
      const char c = text[i + k];
      const char want = k == 4 || k == 7 ? '-' : k == 10 ? 'T' : k == 13 || k == 16 ? ':'
                        : k == 19 ? 'Z' : '0';
      if (want == '0' ? !std::isdigit(static_cast<unsigned char>(c)) : c != want) return false;
    }
    return true;
  };
  std::string out;
  size_t plain = 0;  // the start of the text not yet copied
  for (size_t i = 0; i + kLength <= text.size(); ++i) {
    if (!api_time_at(i)) continue;
    out += EscapeControls(text.substr(plain, i - plain)) + ShownTime(text.substr(i, kLength));
    i += kLength - 1;
    plain = i + 1;
  }
  return out + EscapeControls(text.substr(plain));
}

namespace {

// A text of the daemon's (a reason, an event) with its times as the client shows them.
std::string TimesShown(const nlohmann::json& j, const char* key) {
  return Has(j, key) && j[key].is_string() ? ShownTimesIn(j[key].get<std::string>()) : Val(j, key);
}

}  // namespace

std::string FormatJobShown(const nlohmann::json& job, const nlohmann::json* env) {
  if (!job.is_object()) return EscapeControls(job.dump()) + "\n";
  std::string out = fmt::format("JobId={} JobName={}", Val(job, "id"), Val(job, "name"));
  if (Has(job, "array_id")) {
    out += fmt::format(" ArrayJobId={} ArrayTaskId={} Array={}", Val(job, "array_id"),
                       Val(job, "array_task"), Val(job, "array"));
  }
  out += "\n";
  const auto line = [&](std::string text) { out += "   " + text + "\n"; };
  const std::string pool = Val(job, "pool");
  line(fmt::format("UserId={} Team={} Urgency={} Pool={}", Val(job, "owner"), Val(job, "team"),
                   Val(job, "urgency"), pool.empty() || pool == "-" ? "any" : pool));
  const std::string code = Has(job, "reason_code") ? " (" + Val(job, "reason_code") + ")" : "";
  const std::string reason = Has(job, "reason") && job["reason"] != "" ? TimesShown(job, "reason")
                                                                       : "-";
  line(fmt::format("JobState={} Reason={}{}", Val(job, "state"), reason, code));
  line(fmt::format("Dependency={} Held={} Begin={}", Val(job, "dependency"), Val(job, "held"),
                   When(job, "begin")));
  line(fmt::format("Preemptible={} Attempts={} Failures={} Preemptions={} ExitCode={} RetryAt={}",
                   Val(job, "preemptible"), Val(job, "attempts"), Val(job, "failures"),
                   Val(job, "preemptions"), Val(job, "exit_code"), When(job, "retry_at")));
  line(fmt::format("RunTime={} TimeLimit={} Estimate={} Deadline={}", Duration(job, "run_s"),
                   Duration(job, "time_limit_s"), Duration(job, "estimate_s"),
                   When(job, "deadline")));
  line(fmt::format("SubmitTime={} StartTime={} EndTime={} Wait={}", When(job, "submitted_at"),
                   When(job, "started_at"), When(job, "ended_at"), Duration(job, "wait_s")));
  line(fmt::format("NodeList={} GPUs={} GpuIndices={} GpuModels={} CPUs={} Memory={} Tasks={}",
                   Val(job, "run_nodes"), Gpus(job), Val(job, "run_gpus"),
                   Val(job, "gpu_models") == "-" ? "any" : Val(job, "gpu_models"),
                   Val(job, "cpus"), Memory(job), Val(job, "tasks")));
  out += CardNeeds(job) + TopologyNeeds(job);
  line(fmt::format("Checkpointable={} CheckpointInterval={} LastCheckpoint={} FaultTolerant={}",
                   Val(job, "checkpointable"), Duration(job, "checkpoint_interval_s"),
                   When(job, "last_checkpoint"), Val(job, "fault_tolerant")));
  out += ElasticGpuHours(job);
  out += HowItRuns(job);
  out += Environment(job, env);
  if (Has(job, "details_purged_at")) {
    line("DetailsPurged=" + When(job, "details_purged_at") +
         " (its command, environment and paths are kept no longer)");
  }
  if (Has(job, "array_progress") && job["array_progress"].is_object()) {
    const nlohmann::json& p = job["array_progress"];
    std::string states;
    if (Has(p, "by_state") && p["by_state"].is_object()) {
      for (const auto& [state, n] : p["by_state"].items()) {
        states += fmt::format("{}{}={}", states.empty() ? "" : " ", EscapeControls(state), n.dump());
      }
    }
    line(fmt::format("ArrayProgress={} of {} tasks ended ({})", Val(p, "ended"), Val(p, "tasks"),
                     states));
  }
  if (Has(job, "history") && job["history"].is_array() && !job["history"].empty()) {
    out += "History:\n";
    for (const auto& e : job["history"]) {
      out += fmt::format("   {}  {:<10} {}\n", When(e, "at"), Val(e, "kind"), TimesShown(e, "text"));
    }
  }
  return out;
}

}  // namespace squeeze
