#include "cli/submit_request.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/sbatch_options.h"
#include "config/file_io.h"
#include "config/job_file.h"
#include "config/job_json_writer.h"
#include "config/text_util.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

using Json = nlohmann::ordered_json;

struct FlagField {
  std::string_view field;
  std::string_view flag;
  std::optional<std::string> SubmitFlags::*value;
};

// The flags that are one job-file field each, given as the text the file would hold.
constexpr FlagField kScalarFlags[] = {
    {"name", "--name", &SubmitFlags::name},
    {"gpus", "--gpus", &SubmitFlags::gpus},
    {"step", "--step", &SubmitFlags::step},
    {"scaling", "--scaling", &SubmitFlags::scaling},
    {"gpu_milli", "--gpu-milli", &SubmitFlags::gpu_milli},
    {"gpu_memory", "--gpu-memory", &SubmitFlags::gpu_memory},
    {"gpu_speeds", "--gpu-speeds", &SubmitFlags::gpu_speeds},
    {"topology", "--topology", &SubmitFlags::topology},
    {"pool", "--pool", &SubmitFlags::pool},
    {"data_gb", "--data-gb", &SubmitFlags::data_gb},
    {"urgency", "--urgency", &SubmitFlags::urgency},
    {"preemptible", "--preemptible", &SubmitFlags::preemptible},
    {"checkpointable", "--checkpointable", &SubmitFlags::checkpointable},
    {"checkpoint_interval", "--checkpoint-interval", &SubmitFlags::checkpoint_interval},
    {"checkpoint_cost", "--checkpoint-cost", &SubmitFlags::checkpoint_cost},
    {"checkpoint_stall", "--checkpoint-stall", &SubmitFlags::checkpoint_stall},
    {"fault_tolerant", "--fault-tolerant", &SubmitFlags::fault_tolerant},
    {"estimate", "--estimate", &SubmitFlags::estimate},
    {"time_limit", "--time", &SubmitFlags::time_limit},
    {"deadline", "--deadline", &SubmitFlags::deadline},
    {"team", "--team", &SubmitFlags::team},
    {"max_retries", "--max-retries", &SubmitFlags::max_retries},
    {"hold", "--hold", &SubmitFlags::hold},
    {"begin", "--begin", &SubmitFlags::begin},
    {"cpus", "--cpus", &SubmitFlags::cpus},
    {"memory", "--memory", &SubmitFlags::memory},
    {"output", "--output", &SubmitFlags::output},
    {"error", "--error", &SubmitFlags::error},
    {"array", "--array", &SubmitFlags::array},
    {"dependency", "--dependency", &SubmitFlags::dependency},
};

// The flags that are a list field each, given comma-separated.
constexpr FlagField kListFlags[] = {
    {"gpu_models", "--gpu-models", &SubmitFlags::gpu_models},
    {"regions", "--regions", &SubmitFlags::regions},
};

std::string Absolute(const std::string& cwd, const std::string& dir) {
  std::string path = (std::filesystem::path(cwd) / dir).lexically_normal().string();
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1) {
    items.push_back(std::string(Trim(std::string_view(text).substr(start, comma - start))));
  }
  items.push_back(std::string(Trim(std::string_view(text).substr(start))));
  return items;
}

// The name the reader gives a job whose file names none: the base name of command[0].
std::string DefaultNameFor(const std::string& program, Time now) {
  const Json probe = {{"command", {program}}};
  const Result<JobRequest> job = ParseJobJson(probe.dump(), now);
  return job.ok() ? job->spec.name : "";
}

// A batch script's #SQUEEZE lines, by the field each sets: "train.sbatch:4: #SQUEEZE
// --gpu-memory=40G", what a message about the field starts with.
using ScriptLines = std::map<std::string, std::string>;

// Turns the reader's "JSON request: FIELD: MESSAGE" into "--FLAG: MESSAGE" when the field
// came from a flag, "FILE:LINE: #SQUEEZE --OPTION=VALUE: MESSAGE" when from a script's line,
// else into "FILE: FIELD: MESSAGE" (a rule across fields of the file).
Status Relabel(const Status& error, const std::set<std::string>& from_flags,
               const std::optional<std::string>& file, const ScriptLines& script_lines = {}) {
  std::string message = error.message();
  constexpr std::string_view kJsonSource = "JSON request: ";
  if (message.starts_with(kJsonSource)) message.erase(0, kJsonSource.size());
  const size_t colon = message.find(": ");
  const std::string field = message.substr(0, colon);
  const std::string base = field.substr(0, field.find_first_of(".["));
  if (colon != std::string::npos && from_flags.contains(base)) {
    const std::string rest = message.substr(colon + 2);
    if (base == "env") {
      std::string flag = "--env";
      if (field.size() > 4) flag.append(" ").append(field, 4);
      return Status::Error(flag.append(": ").append(rest));
    }
    for (const FlagField& f : kScalarFlags) {
      if (f.field == base) return Status::Error(std::string(f.flag) + ": " + rest);
    }
    for (const FlagField& f : kListFlags) {
      if (f.field == base) return Status::Error(std::string(f.flag) + ": " + rest);
    }
    if (base == "command") return Status::Error("the command after --: " + message);
  }
  const auto line = script_lines.find(base);
  if (colon != std::string::npos && line != script_lines.end()) {
    return Status::Error(line->second + ": " + message.substr(colon + 2));
  }
  return Status::Error(file ? *file + ": " + message : message);
}

Result<Json> FileJob(const std::string& file, const std::string& text, const SubmitFlags& flags,
                     const std::string& cwd, Time now) {
  Result<JobRequest> job = ParseJobYaml(text, file, now);
  if (!job.ok()) return job.status();
  job->workdir = Absolute(cwd, job->workdir);
  if (!flags.command.empty() && !flags.name &&
      job->spec.name == DefaultNameFor(job->command[0], now)) {
    job->spec.name.clear();  // the name comes from the command given after --
  }
  return Json::parse(JobRequestToJobJson(*job));
}

// Lays the flags over `job`; records in `from_flags` the fields they set.
Status Overlay(const SubmitFlags& flags, const std::string& cwd, Json& job,
               std::set<std::string>& from_flags) {
  for (const FlagField& f : kScalarFlags) {
    if (!(flags.*f.value)) continue;
    job[std::string(f.field)] = *(flags.*f.value);
    from_flags.insert(std::string(f.field));
  }
  for (const FlagField& f : kListFlags) {
    if (!(flags.*f.value)) continue;
    job[std::string(f.field)] = SplitCommas(*(flags.*f.value));
    from_flags.insert(std::string(f.field));
  }
  if (flags.workdir) {
    const std::string& dir = *flags.workdir;
    if (dir.empty()) return Status::Error("--workdir: the path is empty");
    if (dir[0] == '~') {
      return Status::Error("--workdir: '" + dir + "': '~' is not expanded; give the full path");
    }
    job["workdir"] = Absolute(cwd, dir);
  }
  if (!job.contains("workdir")) job["workdir"] = cwd;
  for (const std::string& entry : flags.env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Error("--env: '" + entry + "' is not KEY=VALUE");
    }
    if (!job.contains("env")) job["env"] = Json::object();
    job["env"][entry.substr(0, eq)] = entry.substr(eq + 1);
    from_flags.insert("env");
  }
  if (!flags.command.empty()) {
    job["command"] = flags.command;
    from_flags.insert("command");
  }
  return Status::Ok();
}

// A script's #SQUEEZE lines (squeeze's own options, as its flags take them) laid over what its
// sbatch options made of the job: they win over those, and squeeze's own flags over them.
void TakeSqueezeLines(const std::vector<SbatchDirective>& lines, const std::string& file,
                      SubmitFlags& flags, ScriptLines& script_lines) {
  for (const SbatchDirective& d : lines) {
    const std::string flag = "--" + d.option;
    for (std::span<const FlagField> table : {std::span<const FlagField>(kScalarFlags),
                                              std::span<const FlagField>(kListFlags)}) {
      for (const FlagField& f : table) {
        if (f.flag != flag) continue;
        flags.*f.value = d.value.value_or("true");  // a true-or-false option alone is true
        script_lines[std::string(f.field)] =
            file + ":" + std::to_string(d.line) + ": #SQUEEZE " + flag +
            (d.value ? "=" + EscapeControls(*d.value) : std::string());
      }
    }
  }
}

// Lays what sbatch's options say (a batch script's lines, then the sbatch flags) over `job`;
// a script or --wrap becomes the command.
Status OverlaySbatch(const std::optional<std::string>& file, const std::string* script,
                     const SubmitFlags& flags, const std::string& cwd, Time now, Json& job,
                     std::vector<std::string>& warnings, ScriptLines& script_lines) {
  std::vector<SbatchDirective> options, own;
  if (script != nullptr) {
    Result<std::vector<SbatchDirective>> lines = ReadSbatchDirectives(*script, *file);
    if (!lines.ok()) return lines.status();
    for (SbatchDirective& d : *lines) (d.squeeze ? own : options).push_back(std::move(d));
  }
  options.insert(options.end(), flags.sbatch.begin(), flags.sbatch.end());
  const bool whole_job = script != nullptr || flags.wrap.has_value();
  // sbatch passes the submitter's environment (--export=ALL) by default, to every form of
  // submit; --export=NONE or names honoured. It is data for the run, applied only by the
  // process that has become the job's owner (exec/supervisor.cc, slurm/batch_script.cc).
  Result<SbatchConversion> converted =
      ConvertSbatchOptions(options, script != nullptr ? *file : "the command line",
                           flags.ignore_unsupported, flags.environ, now);
  if (!converted.ok()) return converted.status();
  warnings.insert(warnings.end(), converted->warnings.begin(), converted->warnings.end());
  // The environment lies under what the job file's env: says (the file is the more specific);
  // --env, laid over later, wins over both.
  std::vector<std::string> exported = std::move(converted->flags.env);
  converted->flags.env.clear();
  if (!exported.empty() && !job.contains("env")) job["env"] = Json::object();
  for (const std::string& entry : exported) {
    const size_t eq = entry.find('=');
    if (!job["env"].contains(entry.substr(0, eq))) job["env"][entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (script != nullptr) TakeSqueezeLines(own, *file, converted->flags, script_lines);
  std::set<std::string> ignored;
  if (Status s = Overlay(converted->flags, cwd, job, ignored); !s.ok()) {
    return script != nullptr ? s.WithContext(*file) : s;
  }
  // As sbatch runs them: once, on the first node, starting the tasks asked for with srun.
  if (whole_job) job["tasks"] = converted->tasks;
  if (script != nullptr) {
    const std::string path = Absolute(cwd, *file);
    job["command"] = BatchScriptCommand(path, *script, flags.command, warnings);
    if (!converted->flags.name) job["name"] = DefaultNameFor(path, now);
  } else if (flags.wrap) {
    job["command"] = {"/bin/sh", "-c", *flags.wrap};
    if (!converted->flags.name) job["name"] = "wrap";
  }
  return Status::Ok();
}

// The first text of `job` that is not UTF-8 (an argument or a flag's value taken from a
// non-UTF-8 locale, say), named as the reader names fields; the env's values are left to the
// JSON writer, which replaces such bytes (an environment inherited whole, as sbatch's
// --export=ALL, may hold a variable the job never reads).
Status CheckUtf8(const Json& value, const std::string& field) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (!InvalidUtf8At(text)) return Status::Ok();
    return CheckPlainText(field, text, "squeeze sends a job as UTF-8 JSON");
  }
  if (field == "env") return Status::Ok();
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      if (Status s = CheckUtf8(value[i], field + "[" + std::to_string(i) + "]"); !s.ok()) return s;
    }
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (Status s = CheckUtf8(item, field.empty() ? key : field + "." + key); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<JobRequest> BuildSubmitRequest(const std::optional<std::string>& file,
                                      const SubmitFlags& flags, const std::string& cwd, Time now,
                                      std::vector<std::string>* warnings) {
  if (!file && flags.command.empty() && !flags.wrap) {
    return Status::Error("give a job file, a batch script, --wrap \"COMMAND\" or a command "
                         "after --");
  }
  if (flags.wrap && (file || !flags.command.empty())) {
    return Status::Error("--wrap: the shell line is the whole job; give no job file and no "
                         "command after --");
  }
  std::vector<std::string> notes;
  Json job = Json::object();
  std::optional<std::string> script;
  if (file) {
    Result<std::string> text = ReadWholeFile(*file);
    if (!text.ok()) return text.status().WithContext("job file");
    if (IsBatchScript(*text)) {
      script = std::move(*text);
    } else {
      Result<Json> from_file = FileJob(*file, *text, flags, cwd, now);
      if (!from_file.ok()) return from_file.status();
      job = std::move(*from_file);
    }
  }
  ScriptLines script_lines;
  if (Status s = OverlaySbatch(file, script ? &*script : nullptr, flags, cwd, now, job, notes,
                               script_lines);
      !s.ok()) {
    return s;
  }
  if (warnings != nullptr) *warnings = std::move(notes);
  SubmitFlags own = flags;
  if (script) own.command.clear();  // the script's arguments, not a command
  std::set<std::string> from_flags;
  if (Status s = Overlay(own, cwd, job, from_flags); !s.ok()) return s;
  if (Status s = CheckUtf8(job, ""); !s.ok()) return Relabel(s, from_flags, file, script_lines);
  Result<JobRequest> request =
      ParseJobJson(job.dump(-1, ' ', false, Json::error_handler_t::replace), now);
  if (!request.ok()) return Relabel(request.status(), from_flags, file, script_lines);
  return request;
}

}  // namespace squeeze
