#include "cli/submit_args.h"

#include <algorithm>
#include <set>

#include "config/sbatch_directives.h"

namespace squeeze {
namespace {

struct TextFlag {
  const char* name;
  std::optional<std::string> SubmitFlags::*value;
  const char* help;
  const char* aliases = nullptr;  // other names, comma-separated ("-t")
};

constexpr TextFlag kTextFlags[] = {
    {"--name", &SubmitFlags::name, "The job's name (default: the program's)"},
    {"--gpus", &SubmitFlags::gpus,
     "GPUs, 0 to 1024 (default 1), or a range MIN-MAX (2-8): an elastic job, started on the GPUs "
     "free (at least MIN) and, with --checkpointable, shrunk and grown at checkpoints"},
    {"--step", &SubmitFlags::step, "With a --gpus range: the widths go MIN, MIN+STEP, ... (2)"},
    {"--scaling", &SubmitFlags::scaling,
     "With a --gpus range: how its throughput grows with GPUs: linear (default), amdahl:P, or "
     "WIDTH:THROUGHPUT pairs (1:1,2:1.9,4:3.4)"},
    {"--gpu-milli", &SubmitFlags::gpu_milli, "Share of each GPU in thousandths, 1 to 1000"},
    {"--gpu-models", &SubmitFlags::gpu_models, "Allowed GPU models, comma-separated (A100,H100)"},
    {"--gpu-memory", &SubmitFlags::gpu_memory,
     "The least memory of each GPU it runs on (40GiB, as --memory): only cards with as much"},
    {"--gpu-speeds", &SubmitFlags::gpu_speeds,
     "How fast the job trains on each GPU model, relative to the card its estimate is for "
     "(V100:1,K80:0.24; each 0.001 to 100): it chooses the job's cards, never its place in the "
     "queue"},
    {"--topology", &SubmitFlags::topology,
     "Where a job of several nodes goes in the cluster's blocks and racks: preferred[:LEVEL] "
     "(default: inside one block when one has room), required:LEVEL (waits for room inside "
     "one), unconstrained"},
    {"--pool", &SubmitFlags::pool, "The job's home pool, where its data lives (default: any)"},
    {"--regions", &SubmitFlags::regions,
     "Regions the job and its data may go to, comma-separated (us-east,eu-west)"},
    {"--data-gb", &SubmitFlags::data_gb,
     "GB of data, copied when the job runs outside its home pool's region (250, 1.5)"},
    {"--urgency", &SubmitFlags::urgency, "critical, high, normal or low"},
    {"--checkpoint-interval", &SubmitFlags::checkpoint_interval,
     "The job checkpoints on its own this often (30m); needs --checkpointable"},
    {"--checkpoint-cost", &SubmitFlags::checkpoint_cost,
     "What one checkpoint takes (2m): squeeze waits this long for it before SIGTERM when it is "
     "longer than the daemon's --checkpoint-grace, and the scheduler counts it where a stop or "
     "capacity that may be taken away costs the job time; needs --checkpointable"},
    {"--checkpoint-stall", &SubmitFlags::checkpoint_stall,
     "Asynchronous checkpoints: the part of --checkpoint-cost that pauses training (5s); "
     "needs --checkpoint-cost"},
    {"--estimate", &SubmitFlags::estimate, "Expected run time (2h, 1h30m, 1:30:00)"},
    {"--time", &SubmitFlags::time_limit,
     "Time limit of each run, as Slurm's --time (1:00:00, 2-12, 90 = minutes, 2h): the job is "
     "asked to checkpoint before it, stopped at it, and ends timeout",
     "-t,--time-limit"},
    {"--deadline", &SubmitFlags::deadline, "RFC 3339 date-time, or +DURATION from now"},
    {"--team", &SubmitFlags::team, "The team charged for the job"},
    {"--workdir", &SubmitFlags::workdir, "Directory to run in (default: this one)"},
    {"--max-retries", &SubmitFlags::max_retries, "Restarts after a failure, 0 to 100"},
    {"--cpus", &SubmitFlags::cpus, "CPU cores for the whole job (4, 0.5)"},
    {"--memory", &SubmitFlags::memory, "Memory for the whole job (16GiB, 512MiB)"},
};

// squeeze's own flags that are also sbatch's, with the same meaning (--gpus: total GPUs,
// --time: the limit) or squeeze's (--deadline: when the job should be done), and --wrap.
const std::set<std::string_view> kOwnNames = {"gpus", "time", "deadline", "wrap"};

// The --help line of an sbatch option whose meaning in squeeze needs saying; empty for none.
std::string SbatchHelp(std::string_view name) {
  if (name == "output") {
    return "A file for the job's stdout (and stderr, without -e) instead of its log in the data "
           "directory: %j job id, %A array id, %a array task, %x name, %u user, %% a percent; "
           "relative to the workdir; emptied at the first run, appended to at later ones";
  }
  if (name == "error") return "A file for the job's stderr (the same % letters as -o)";
  if (name == "open-mode") return "truncate only (what squeeze does at a job's first run)";
  if (name == "array") {
    return "A job array: task indices 0-99, 0-99:2 or 1,3,5-7, and %N for at most N running at "
           "once; each task gets SLURM_ARRAY_TASK_ID";
  }
  if (name == "dependency") {
    return "Start after other jobs: afterok:ID[:ID], afternotok, afterany, after, singleton; ',' "
           "all, '?' any; an array's id means all its tasks, ID_TASK one";
  }
  if (name == "job-name") return "The job's name (as --name)";
  if (name == "partition") return "The job's home pool (as --pool)";
  if (name == "hold") return "Submit it held: it waits until squeeze release ID";
  if (name == "begin") return "Not before then: now+1hour, 16:00, 2026-12-04T10:00, tomorrow";
  return "";
}

bool HasDash(const CLI::App& sub) {
  const std::vector<std::string> rest = sub.remaining();
  return std::find(rest.begin(), rest.end(), "--") != rest.end();
}

}  // namespace

// Whether FILE was parsed after `--`: CLI11 fills the first positional first, even from the
// words after `--`, so `submit -- python x` would make "python" the file. The check below runs
// once, as FILE is parsed (validate_positionals), when the `--` already sits among the
// subcommand's remaining arguments if it came first.
struct SubmitArgs::Seen {
  bool checked = false;
  bool after_dash = false;
};

SubmitArgs::SubmitArgs(CLI::App& sub) : sub_(sub), seen_(std::make_shared<Seen>()) {
  sub.validate_positionals();
  CLI::Validator note_dash(
      [seen = seen_, app = &sub](std::string&) {
        if (!seen->checked) {
          seen->checked = true;
          seen->after_dash = HasDash(*app);
        }
        return std::string();
      },
      "", "");
  sub.add_option("FILE", file_, "A job file (YAML, docs/job-file.md); flags override its fields")
      ->check(note_dash);
  sub.add_option("COMMAND", words_, "The program and its arguments, after --");
  for (const TextFlag& f : kTextFlags) {
    const std::string names = f.aliases ? std::string(f.aliases) + "," + f.name : f.name;
    sub.add_option(names, values_[f.name], f.help);
  }
  sub.add_option("--env", env_, "KEY=VALUE added to the job's environment; repeatable")
      ->allow_extra_args(false);
  sub.add_option("--wrap", wrap_,
                 "sbatch's --wrap: this shell line (run by /bin/sh) is the whole job");
  sub.add_flag("--ignore-unsupported", ignore_unsupported_,
               "An sbatch option (#SBATCH line or flag) squeeze cannot honour is left out with a "
               "warning instead of refusing the job");
  // Every other sbatch option, by its long name and letter: the ones squeeze honours become
  // job fields (docs/job-file.md), the others are refused by name (ConvertSbatchOptions).
  CLI::Option_group* sbatch = sub.add_option_group(
      "sbatch options", "As sbatch takes them (-J NAME, --gres=gpu:2, -p POOL, ...); see "
                        "docs/job-file.md for what each becomes");
  for (const SbatchOption& o : SbatchOptions()) {
    if (kOwnNames.contains(o.name)) continue;
    std::string names = "--" + std::string(o.name);
    if (o.letter != 0 && o.letter != 't') names = std::string("-") + o.letter + "," + names;
    if (o.arity == SbatchArity::kFlag) {
      sbatch->add_flag(names, sbatch_flags_[std::string(o.name)]);
    } else {
      CLI::Option* opt = sbatch->add_option(names, sbatch_values_[std::string(o.name)]);
      if (o.arity == SbatchArity::kOptional) opt->expected(0, 1);
      opt->description(SbatchHelp(o.name));
    }
  }
  sub.add_flag("--preemptible,!--no-preemptible", preemptible_,
               "The scheduler may stop the job and restart it later");
  sub.add_flag("--checkpointable,!--no-checkpointable", checkpointable_,
               "The job saves its state when asked and resumes from it");
  sub.add_flag("--fault-tolerant,!--no-fault-tolerant", fault_tolerant_,
               "The job tolerates interruption well: with --preemptible it goes to spot capacity "
               "first");
}

std::optional<std::string> SubmitArgs::file() const {
  if (sub_.count("FILE") == 0 || seen_->after_dash) return std::nullopt;
  return file_;
}

Result<SubmitFlags> SubmitArgs::flags() const {
  SubmitFlags flags;
  for (const TextFlag& f : kTextFlags) {
    if (sub_.count(f.name) > 0) flags.*f.value = values_.at(f.name);
  }
  if (sub_.count("--preemptible") > 0) flags.preemptible = preemptible_ ? "true" : "false";
  if (sub_.count("--checkpointable") > 0) {
    flags.checkpointable = checkpointable_ ? "true" : "false";
  }
  if (sub_.count("--fault-tolerant") > 0) {
    flags.fault_tolerant = fault_tolerant_ ? "true" : "false";
  }
  flags.env = env_;
  for (const SbatchOption& o : SbatchOptions()) {
    const std::string name(o.name);
    if (kOwnNames.contains(o.name) || sub_.count("--" + name) == 0) continue;
    SbatchDirective d;
    d.option = name;
    d.written = "--" + name;
    if (o.arity != SbatchArity::kFlag) d.value = sbatch_values_.at(name);
    flags.sbatch.push_back(std::move(d));
  }
  if (sub_.count("--wrap") > 0) flags.wrap = wrap_;
  flags.ignore_unsupported = ignore_unsupported_;
  if (sub_.count("FILE") > 0 && seen_->after_dash) flags.command.push_back(file_);
  flags.command.insert(flags.command.end(), words_.begin(), words_.end());
  if (!words_.empty() && !HasDash(sub_)) {
    return Status::Error("'" + words_[0] + "': give one job file, and the command after --, " +
                         "like: squeeze submit --gpus 2 -- python train.py");
  }
  return flags;
}

}  // namespace squeeze
