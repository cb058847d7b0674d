#include "cli/sbatch_options.h"

#include "cli/sbatch_export.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>

#include "core/duration.h"
#include "core/job_array.h"
#include "core/output_path.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

// What the options say, before it becomes flags (counts multiply at the end: --gres is per
// node, --mem per node, and so on).
struct Shape {
  int nodes = 1;
  int nodes_max = 0;  // --nodes=MIN-MAX (moldable): MAX; 0 = one count
  std::optional<int64_t> gpus_total, gpus_per_node, gpus_per_task;
  std::optional<std::string> gpu_type;
  std::optional<int64_t> ntasks, ntasks_per_node, cpus_per_task;
  std::optional<int64_t> mem_per_node_mib, mem_per_cpu_mib, mem_per_gpu_mib;
  std::optional<std::string> exported;  // the --export value
};

// Why squeeze has no equal for an option, where a reason helps.
std::string_view UnsupportedWhy(std::string_view option) {
  if (option == "open-mode") {
    return "squeeze empties the file at a job's first run and appends at its later runs";
  }
  if (option == "mail-type" || option == "mail-user") return "squeeze sends no mail";
  if (option == "wrap") return "--wrap is a command-line option only";
  return "squeeze has no equal for it";
}

class Converter {
 public:
  Converter(std::string_view source, bool ignore_unsupported,
            const std::map<std::string, std::string>& environ, Time now)
      : source_(source), ignore_(ignore_unsupported), environ_(environ), now_(now) {}

  Status Take(const SbatchDirective& d);
  Status Switches(const SbatchDirective& d, const std::string& value);
  Result<SbatchConversion> Finish();

 private:
  std::string Where(const SbatchDirective& d) const {
    const std::string written = d.written.empty() ? "--" + d.option : d.written;
    const std::string value =
        d.value ? (d.written.size() == 2 ? " " : "=") + EscapeControls(*d.value) : "";
    if (d.line == 0) return written + value;
    return std::string(source_) + ":" + std::to_string(d.line) + ": #SBATCH " + written + value;
  }
  Status Bad(const SbatchDirective& d, const std::string& message) const {
    return Status::Error(Where(d) + ": " + message);
  }
  Result<int64_t> Count(const SbatchDirective& d, std::string_view text, int64_t min,
                        int64_t max) const;
  Result<int64_t> MemoryMib(const SbatchDirective& d) const;
  Status Gres(const SbatchDirective& d);
  Status TypedGpus(const SbatchDirective& d, std::optional<int64_t>& into);
  Status Signal(const SbatchDirective& d);
  Status Urgency(const SbatchDirective& d);
  Status OutputFile(const SbatchDirective& d, std::optional<std::string>& into);
  Status Unsupported(const SbatchDirective& d);

  std::string_view source_;
  bool ignore_;
  const std::map<std::string, std::string>& environ_;
  Time now_;
  Shape shape_;
  SbatchConversion out_;
};

Result<int64_t> Converter::Count(const SbatchDirective& d, std::string_view text, int64_t min,
                                 int64_t max) const {
  int64_t n = 0;
  auto [end, e] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (e != std::errc() || end != text.data() + text.size() || n < min || n > max) {
    return Bad(d, "'" + std::string(text) + "' is not a whole number from " + std::to_string(min) +
                      " to " + std::to_string(max));
  }
  return n;
}

// Slurm's memory sizes: a number with K, M (the default), G or T.
Result<int64_t> Converter::MemoryMib(const SbatchDirective& d) const {
  std::string text = *d.value;
  double scale = 1;  // MiB
  if (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back()))) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K':
        scale = 1.0 / 1024;
        break;
      case 'M':
        scale = 1;
        break;
      case 'G':
        scale = 1024;
        break;
      case 'T':
        scale = 1024 * 1024;
        break;
      default:
        return Bad(d, "'" + text + "' is not a memory size (a number with K, M, G or T)");
    }
    text.pop_back();
  }
  Result<int64_t> n = Count(d, text, 0, int64_t{1} << 40);
  if (!n.ok()) {
    return Bad(d, "'" + *d.value + "' is not a memory size (a number with K, M, G or T)");
  }
  if (*n == 0) return Bad(d, "0 (all of a node's memory) is not supported; give a size");
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(*n) * scale + 0.5));
}

// --gres=gpu[:TYPE][:N][,...]: GPUs per node.
Status Converter::Gres(const SbatchDirective& d) {
  std::string_view rest = *d.value;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::vector<std::string_view> parts;
    for (size_t start = 0;;) {
      const size_t colon = item.find(':', start);
      parts.push_back(item.substr(start, colon - start));
      if (colon == std::string_view::npos) break;
      start = colon + 1;
    }
    if (parts[0] != "gpu") {
      return Bad(d, "only GPUs (gpu[:TYPE]:N) are resources squeeze schedules, not '" +
                        std::string(parts[0]) + "'");
    }
    if (parts.size() > 3) return Bad(d, "'" + std::string(item) + "' is not gpu[:TYPE][:N]");
    int64_t n = 1;
    std::optional<std::string> type;
    if (parts.size() == 3) {
      type = std::string(parts[1]);
      Result<int64_t> count = Count(d, parts[2], 0, 1024);
      if (!count.ok()) return count.status();
      n = *count;
    } else if (parts.size() == 2) {
      const bool number =
          !parts[1].empty() && std::isdigit(static_cast<unsigned char>(parts[1][0]));
      if (number) {
        Result<int64_t> count = Count(d, parts[1], 0, 1024);
        if (!count.ok()) return count.status();
        n = *count;
      } else {
        type = std::string(parts[1]);
      }
    }
    if (type && type->empty()) return Bad(d, "the GPU type is empty");
    shape_.gpus_per_node = n;
    if (type) shape_.gpu_type = type;
  }
  return Status::Ok();
}

// --gpus=[TYPE:]N and its per-node and per-task forms.
Status Converter::TypedGpus(const SbatchDirective& d, std::optional<int64_t>& into) {
  std::string_view text = *d.value;
  if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    const std::string_view type = text.substr(0, colon);
    if (type.empty() || type.find(':') != std::string_view::npos) {
      return Bad(d, "'" + std::string(text) + "' is not [TYPE:]N");
    }
    shape_.gpu_type = std::string(type);
    text = text.substr(colon + 1);
  }
  Result<int64_t> n = Count(d, text, 0, 1024);
  if (!n.ok()) return n.status();
  into = *n;
  return Status::Ok();
}

// --signal=[{R|B}:]SIG[@TIME]: the checkpoint signal (USR1) means the job checkpoints when
// asked; TIME, how long ahead of the limit it wants it, is what its checkpoint may take.
Status Converter::Signal(const SbatchDirective& d) {
  std::string_view text = *d.value;
  if (text.size() > 2 && text[1] == ':' && (text[0] == 'R' || text[0] == 'B'))
    text.remove_prefix(2);
  std::string_view sig = text.substr(0, text.find('@'));
  if (sig.starts_with("SIG")) sig.remove_prefix(3);
  if (sig != "USR1" && sig != "10") {
    return Bad(d, "squeeze asks for a checkpoint with SIGUSR1 only (--signal=B:USR1@90); '" +
                      std::string(sig) + "' is not it");
  }
  out_.flags.checkpointable = "true";
  if (const size_t at = text.find('@'); at != std::string_view::npos) {
    Result<int64_t> lead = Count(d, text.substr(at + 1), 0, 65535);
    if (!lead.ok()) return lead.status();
    out_.flags.checkpoint_cost = std::to_string(*lead) + "s";
  }
  return Status::Ok();
}

Status Converter::Urgency(const SbatchDirective& d) {
  std::string word = *d.value;
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view urgency = UrgencyOfQos(word);
  if (urgency.empty()) {
    return Bad(d, "squeeze ranks jobs by urgency, and '" + *d.value +
                      "' is none of its words: critical (urgent, top), high (priority, express), "
                      "normal (standard, default), low (scavenger, standby, preemptible, spot)");
  }
  out_.flags.urgency = std::string(urgency);
  return Status::Ok();
}

// -o/--output, -e/--error: a file, its % letters filled in at each start.
Status Converter::OutputFile(const SbatchDirective& d, std::optional<std::string>& into) {
  if (Status s = CheckOutputPattern(*d.value); !s.ok()) return Bad(d, s.message());
  into = *d.value;
  return Status::Ok();
}

Status Converter::Unsupported(const SbatchDirective& d) {
  const std::string message =
      Where(d) + ": not supported: " + std::string(UnsupportedWhy(d.option));
  if (!ignore_) return Status::Error(message + " (--ignore-unsupported leaves it out)");
  out_.warnings.push_back(message + "; left out");
  return Status::Ok();
}

Status Converter::Take(const SbatchDirective& d) {
  const std::string& o = d.option;
  const std::string value = d.value.value_or("");
  // What becomes the job's name, paths, team, ... is printed to other users: no control
  // characters (a shell line, --wrap, and the environment, --export, are the job's own).
  if (d.value && o != "wrap" && o != "export") {
    if (Status s = CheckPlainText(Where(d), value, "squeeze prints it in its tables and messages");
        !s.ok()) {
      return s;
    }
  }
  if (o == "job-name") {
    out_.flags.name = value;
  } else if (o == "gres") {
    return Gres(d);
  } else if (o == "gpus") {
    return TypedGpus(d, shape_.gpus_total);
  } else if (o == "gpus-per-node") {
    return TypedGpus(d, shape_.gpus_per_node);
  } else if (o == "gpus-per-task") {
    return TypedGpus(d, shape_.gpus_per_task);
  } else if (o == "nodes") {
    const size_t dash = value.find('-');
    Result<int64_t> n = Count(d, value.substr(0, dash), 1, 1024);
    if (!n.ok()) return n.status();
    if (dash != std::string::npos) {
      Result<int64_t> most = Count(d, value.substr(dash + 1), 1, 1024);
      if (!most.ok()) return most.status();
      if (*most < *n) return Bad(d, "the range's MAX is less than its MIN");
      if (*most != *n) shape_.nodes_max = static_cast<int>(*most);
    }
    shape_.nodes = static_cast<int>(*n);
  } else if (o == "ntasks" || o == "ntasks-per-node" || o == "cpus-per-task") {
    Result<int64_t> n = Count(d, value, 1, 1 << 20);
    if (!n.ok()) return n.status();
    (o == "ntasks"            ? shape_.ntasks
     : o == "ntasks-per-node" ? shape_.ntasks_per_node
                              : shape_.cpus_per_task) = *n;
  } else if (o == "mem" || o == "mem-per-cpu" || o == "mem-per-gpu") {
    Result<int64_t> mib = MemoryMib(d);
    if (!mib.ok()) return mib.status();
    (o == "mem"           ? shape_.mem_per_node_mib
     : o == "mem-per-cpu" ? shape_.mem_per_cpu_mib
                          : shape_.mem_per_gpu_mib) = *mib;
  } else if (o == "time") {
    Result<Time> limit = ParseSlurmTime(value);
    if (!limit.ok()) return Bad(d, limit.status().message());
    out_.flags.time_limit = value;
  } else if (o == "partition") {
    if (value.find(',') != std::string::npos) {
      return Bad(d, "one partition (squeeze's pool) only; squeeze picks among pools itself");
    }
    out_.flags.pool = value;
  } else if (o == "qos" || o == "priority") {
    return Urgency(d);
  } else if (o == "requeue" || o == "no-requeue") {
    out_.flags.preemptible = o == "requeue" ? "true" : "false";
  } else if (o == "signal") {
    return Signal(d);
  } else if (o == "chdir") {
    out_.flags.workdir = value;
  } else if (o == "export") {
    shape_.exported = value;
  } else if (o == "account") {
    out_.flags.team = value;
  } else if (o == "hold") {
    out_.flags.hold = "true";
  } else if (o == "array") {
    if (auto spec = ParseArraySpec(value); !spec.ok()) return Bad(d, spec.status().message());
    out_.flags.array = value;
  } else if (o == "dependency") {
    if (auto deps = ParseDependency(value); !deps.ok()) return Bad(d, deps.status().message());
    out_.flags.dependency = value;
  } else if (o == "begin") {
    Result<Time> ahead = SecondsUntilBegin(value, now_);
    if (!ahead.ok()) return Bad(d, ahead.status().message());
    out_.flags.begin = "+" + std::to_string(WholeSeconds(std::max<Time>(0, *ahead))) + "s";
  } else if (o == "output") {
    return OutputFile(d, out_.flags.output);
  } else if (o == "error") {
    return OutputFile(d, out_.flags.error);
  } else if (o == "switches") {
    return Switches(d, value);
  } else if (o == "open-mode" && value == "truncate") {
    // sbatch's default (JobFileAppend=0): squeeze empties the file at the first run too.
  } else {
    return Unsupported(d);
  }
  return Status::Ok();
}

// Slurm's --switches=COUNT[@MAX_TIME]: the fewest leaf switches, waiting up to MAX_TIME;
// squeeze's preferred placement (inside one block when one has room) is the same wish.
Status Converter::Switches(const SbatchDirective& d, const std::string& value) {
  const std::string count = value.substr(0, value.find('@'));
  if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos ||
      count.size() > 6 || std::stoi(count) < 1) {
    return Bad(d, "'" + value + "' is not COUNT[@MAX_TIME] with a COUNT of 1 or more");
  }
  out_.flags.topology = "preferred";
  return Status::Ok();
}

Result<SbatchConversion> Converter::Finish() {
  const Shape& s = shape_;
  const int64_t tasks = s.ntasks.value_or(s.nodes * s.ntasks_per_node.value_or(1));
  out_.tasks = tasks;
  std::optional<int64_t> gpus = s.gpus_total;
  if (!gpus && s.gpus_per_node) gpus = *s.gpus_per_node * s.nodes;
  if (!gpus && s.gpus_per_task) gpus = *s.gpus_per_task * tasks;
  if (gpus) out_.flags.gpus = std::to_string(*gpus);
  if (s.nodes_max > s.nodes) {
    // Moldable (--nodes=MIN-MAX): an elastic job of whole nodes' GPUs (core/elastic.h).
    if (!s.gpus_per_node || *s.gpus_per_node <= 0 || s.gpus_total || s.gpus_per_task) {
      return Status::Error(std::string(source_) + ": --nodes=" + std::to_string(s.nodes) + "-" +
                           std::to_string(s.nodes_max) +
                           ": a range of nodes needs its GPUs per node (--gres=gpu:N or "
                           "--gpus-per-node=N), which it takes on each node");
    }
    out_.flags.gpus = std::to_string(*s.gpus_per_node * s.nodes) + "-" +
                      std::to_string(*s.gpus_per_node * s.nodes_max);
    out_.flags.step = std::to_string(*s.gpus_per_node);
  }
  if (s.gpu_type) out_.flags.gpu_models = *s.gpu_type;
  if (s.cpus_per_task || s.ntasks || s.ntasks_per_node) {
    out_.flags.cpus = std::to_string(tasks * s.cpus_per_task.value_or(1));
  }
  std::optional<int64_t> mib;
  if (s.mem_per_node_mib) mib = *s.mem_per_node_mib * s.nodes;
  if (s.mem_per_cpu_mib) mib = *s.mem_per_cpu_mib * tasks * s.cpus_per_task.value_or(1);
  if (s.mem_per_gpu_mib) mib = *s.mem_per_gpu_mib * gpus.value_or(1);
  if (mib) out_.flags.memory = std::to_string(*mib) + "MiB";
  if (Status e = AddExportedEnvironment(s.exported.value_or("ALL"), environ_, source_,
                                        out_.flags.env);
      !e.ok()) {
    return e;
  }
  return std::move(out_);
}

}  // namespace

std::string_view UrgencyOfQos(std::string_view qos) {
  static constexpr std::pair<std::string_view, std::string_view> kMap[] = {
      {"critical", "critical"},
      {"urgent", "critical"},
      {"top", "critical"},
      {"high", "high"},
      {"priority", "high"},
      {"express", "high"},
      {"normal", "normal"},
      {"standard", "normal"},
      {"default", "normal"},
      {"low", "low"},
      {"scavenger", "low"},
      {"standby", "low"},
      {"preemptible", "low"},
      {"spot", "low"},
      // NERSC's (Perlmutter's) QOS names
      {"regular", "normal"},
      {"premium", "high"},
      {"debug", "high"},
      {"preempt", "low"},
      {"overrun", "low"},
  };
  for (const auto& [word, urgency] : kMap) {
    if (word == qos) return urgency;
  }
  return {};
}

Result<SbatchConversion> ConvertSbatchOptions(const std::vector<SbatchDirective>& options,
                                              std::string_view source, bool ignore_unsupported,
                                              const std::map<std::string, std::string>& environ,
                                              Time now) {
  Converter c(source, ignore_unsupported, environ, now);
  for (const SbatchDirective& d : options) {
    if (Status s = c.Take(d); !s.ok()) return s;
  }
  return c.Finish();
}

Result<Time> SecondsUntilBegin(std::string_view text, Time now) {
  const std::string s(text);
  const auto bad = [&] {
    return Status::Error("'" + s + "' is not a time sbatch --begin takes (now+1hour, 16:00, "
                         "2026-12-04T10:00, tomorrow)");
  };
  if (s == "now") return Time{0};
  if (s.starts_with("now+")) {
    size_t digits = 4;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    if (digits == 4 || digits - 4 > 9) return bad();
    const Time n = std::stoll(s.substr(4, digits - 4));
    const std::string unit = s.substr(digits);
    static constexpr std::pair<std::string_view, Time> kUnits[] = {
        {"", kSecond},    {"s", kSecond},   {"sec", kSecond},   {"second", kSecond},
        {"seconds", kSecond},
        {"m", kMinute},   {"min", kMinute}, {"minute", kMinute}, {"minutes", kMinute},
        {"h", kHour},     {"hour", kHour},  {"hours", kHour},
        {"d", kDay},      {"day", kDay},    {"days", kDay},
        {"week", kWeek},  {"weeks", kWeek}};
    for (const auto& [name, length] : kUnits) {
      if (unit == name) return n * length;
    }
    return bad();
  }
  const time_t t = static_cast<time_t>(WholeSeconds(now));
  std::tm local{};
  localtime_r(&t, &local);
  std::tm at = local;
  at.tm_isdst = -1;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  char tail = 0;
  bool roll = false;  // a clock time already past today is tomorrow's
  if (s == "midnight" || s == "tomorrow") {
    at.tm_mday += 1;
    at.tm_hour = at.tm_min = at.tm_sec = 0;
  } else if (s == "today") {
    at.tm_hour = at.tm_min = at.tm_sec = 0;
  } else if (s == "noon" || s == "teatime") {
    at.tm_hour = s == "noon" ? 12 : 16;
    at.tm_min = at.tm_sec = 0;
    roll = true;
  } else if (s.find_first_not_of("0123456789-T:") == std::string::npos &&
             (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &sec,
                          &tail) >= 5 ||
              std::sscanf(s.c_str(), "%4d-%2d-%2d%c", &y, &mo, &d, &tail) == 3)) {
    if (tail != 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) {
      return bad();
    }
    at = std::tm{};
    at.tm_year = y - 1900;
    at.tm_mon = mo - 1;
    at.tm_mday = d;
    at.tm_hour = h;
    at.tm_min = mi;
    at.tm_sec = sec;
    at.tm_isdst = -1;
  } else if (s.find_first_not_of("0123456789:") == std::string::npos &&
             std::sscanf(s.c_str(), "%2d:%2d:%2d%c", &h, &mi, &sec, &tail) >= 2) {
    if (tail != 0 || h > 23 || mi > 59 || sec > 59 || h < 0 || mi < 0 || sec < 0) return bad();
    at.tm_hour = h;
    at.tm_min = mi;
    at.tm_sec = sec;
    roll = true;
  } else {
    return bad();
  }
  Time when = Seconds(static_cast<int64_t>(std::mktime(&at)));
  if (roll && when <= now) when += kDay;
  return when - now;
}

bool IsBatchScript(std::string_view text) {
  if (text.starts_with("#!")) return true;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.starts_with("#SBATCH") || line.starts_with("#SQUEEZE")) return true;
    if (!line.empty() && line.front() != '#') return false;
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return false;
}

std::vector<std::string> BatchScriptCommand(const std::string& path, const std::string& text,
                                            const std::vector<std::string>& args,
                                            std::vector<std::string>& warnings) {
  std::vector<std::string> interpreter;
  if (text.starts_with("#!")) {
    const std::string line = text.substr(2, text.find('\n') - 2);
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      const size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) interpreter.push_back(line.substr(start, i - start));
    }
  }
  if (interpreter.empty()) interpreter = {"/bin/bash"};
  // The program that reads the script: the first word, or env's argument.
  std::string program = std::filesystem::path(interpreter[0]).filename().string();
  if (program == "env" && interpreter.size() > 1) program = interpreter.back();
  constexpr std::string_view kShells[] = {"sh", "bash", "zsh", "ksh", "dash"};
  std::vector<std::string> command;
  if (std::find(std::begin(kShells), std::end(kShells), program) != std::end(kShells)) {
    command = interpreter;
    command.insert(command.end(), {"-c", text, path});
  } else {
    warnings.push_back(path + ": a " + program +
                       " script runs as the file is when the job starts (squeeze keeps a copy of "
                       "shell scripts only)");
    command = {path};
  }
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

}  // namespace squeeze
