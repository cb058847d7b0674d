#include "config/sbatch_directives.h"

#include <algorithm>
#include <cctype>

#include "config/text_util.h"

namespace squeeze {

namespace {

using A = SbatchArity;

// sbatch's options (Slurm 22.05's man page), in its order.
const std::vector<SbatchOption> kOptions = {
    {"account", 'A'}, {"acctg-freq"}, {"array", 'a'}, {"batch"}, {"bb"}, {"bbf"},
    {"begin", 'b'}, {"chdir", 'D'}, {"cluster-constraint"}, {"clusters", 'M'}, {"comment"},
    {"constraint", 'C'}, {"container"}, {"contiguous", 0, A::kFlag}, {"core-spec", 'S'},
    {"cores-per-socket"}, {"cpu-freq"}, {"cpus-per-gpu"}, {"cpus-per-task", 'c'},
    {"deadline"}, {"delay-boot"}, {"dependency", 'd'}, {"distribution", 'm'},
    {"error", 'e'}, {"exclude", 'x'}, {"exclusive", 0, A::kOptional}, {"export"},
    {"export-file"}, {"extra-node-info", 'B'}, {"get-user-env", 0, A::kOptional}, {"gid"},
    {"gpu-bind"}, {"gpu-freq"}, {"gpus", 'G'}, {"gpus-per-node"}, {"gpus-per-socket"},
    {"gpus-per-task"}, {"gres"}, {"gres-flags"}, {"hint"}, {"hold", 'H', A::kFlag},
    {"ignore-pbs", 0, A::kFlag}, {"input", 'i'}, {"job-name", 'J'},
    {"kill-on-invalid-dep"}, {"licenses", 'L'}, {"mail-type"}, {"mail-user"},
    {"mcs-label"}, {"mem"}, {"mem-bind"}, {"mem-per-cpu"}, {"mem-per-gpu"}, {"mincpus"},
    {"network"}, {"nice", 0, A::kOptional}, {"no-kill", 'k', A::kOptional},
    {"no-requeue", 0, A::kFlag}, {"nodefile", 'F'}, {"nodelist", 'w'}, {"nodes", 'N'},
    {"ntasks", 'n'}, {"ntasks-per-core"}, {"ntasks-per-gpu"}, {"ntasks-per-node"},
    {"ntasks-per-socket"}, {"open-mode"}, {"output", 'o'}, {"overcommit", 'O', A::kFlag},
    {"oversubscribe", 's', A::kFlag}, {"parsable", 0, A::kFlag}, {"partition", 'p'},
    {"power"}, {"priority"}, {"profile"}, {"propagate", 0, A::kOptional}, {"qos", 'q'},
    {"quiet", 'Q', A::kFlag}, {"reboot", 0, A::kFlag}, {"requeue", 0, A::kFlag},
    {"reservation"}, {"signal"}, {"sockets-per-node"}, {"spread-job", 0, A::kFlag},
    {"switches"}, {"test-only", 0, A::kFlag}, {"thread-spec"}, {"threads-per-core"},
    {"time", 't'}, {"time-min"}, {"tmp"}, {"uid"}, {"use-min-nodes", 0, A::kFlag},
    {"verbose", 'v', A::kFlag}, {"wait", 'W', A::kFlag}, {"wait-all-nodes"}, {"wckey"},
    {"wrap"},
};

// squeeze's own options that sbatch lacks, as `squeeze submit` takes them: a batch script gives
// them on #SQUEEZE lines. A true-or-false one alone is true; --NAME=false says false.
const std::vector<SbatchOption> kSqueezeOptions = {
    {"gpu-memory"}, {"gpu-speeds"}, {"gpu-models"}, {"gpu-milli"}, {"estimate"},
    {"deadline"}, {"urgency"}, {"preemptible", 0, A::kOptional},
    {"checkpointable", 0, A::kOptional}, {"fault-tolerant", 0, A::kOptional},
    {"checkpoint-interval"}, {"checkpoint-cost"}, {"checkpoint-stall"}, {"data-gb"},
    {"regions"}, {"max-retries"}, {"step"}, {"scaling"}, {"topology"},
};

std::string Nearest(std::string_view name) {
  const SbatchOption* best = nullptr;
  size_t best_distance = 3;  // suggest only what is two edits away or closer
  for (const SbatchOption& o : kOptions) {
    const size_t d = EditDistance(name, o.name);
    if (d < best_distance) {
      best = &o;
      best_distance = d;
    }
  }
  return best ? " (did you mean --" + std::string(best->name) + "?)" : "";
}

// A directive line's words, split as a shell splits them; a word starting with '#' ends them.
Result<std::vector<std::string>> Words(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size() || text[i] == '#') break;
    std::string word;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) {
      const char c = text[i++];
      if (c == '\'' || c == '"') {
        bool closed = false;
        while (i < text.size()) {
          const char q = text[i++];
          if (q == c) {
            closed = true;
            break;
          }
          // In double quotes a backslash keeps \", \\ and \$ as themselves, as a shell does.
          if (c == '"' && q == '\\' && i < text.size() &&
              (text[i] == '"' || text[i] == '\\' || text[i] == '$')) {
            word += text[i++];
          } else {
            word += q;
          }
        }
        if (!closed) {
          return Status::Error(std::string("a ") + (c == '"' ? "double" : "single") +
                               " quote is not closed");
        }
      } else if (c == '\\' && i < text.size()) {
        word += text[i++];
      } else {
        word += c;
      }
    }
    words.push_back(std::move(word));
  }
  return words;
}

// What a directive line is: #SBATCH (sbatch's options) or #SQUEEZE (squeeze's own, which sbatch
// reads as a comment).
struct DirectiveKind {
  std::string_view prefix;
  const std::vector<SbatchOption>* options;
  bool squeeze;
};
const DirectiveKind kDirectiveKinds[] = {{"#SBATCH", &kOptions, false},
                                         {"#SQUEEZE", &kSqueezeOptions, true}};

const SbatchOption* FindIn(const std::vector<SbatchOption>& options, std::string_view name) {
  for (const SbatchOption& o : options) {
    if (o.name == name || (name.size() == 1 && o.letter != 0 && o.letter == name[0])) return &o;
  }
  return nullptr;
}

std::string SqueezeOptionNames() {
  std::string names;
  for (const SbatchOption& o : kSqueezeOptions) {
    names += (names.empty() ? "--" : ", --") + std::string(o.name);
  }
  return names;
}

// The options of one directive line (`text`: what follows #SBATCH or #SQUEEZE), added to `out`.
Status ReadDirectiveLine(std::string_view text, int line_number, std::string_view source,
                         const DirectiveKind& kind, std::vector<SbatchDirective>& out) {
  auto fail = [&](const std::string& what) {
    return Status::Error(std::string(source) + ":" + std::to_string(line_number) + ": " +
                         std::string(kind.prefix) + " " + what);
  };
  Result<std::vector<std::string>> words = Words(text);
  if (!words.ok()) return fail(words.status().message());
  for (size_t w = 0; w < words->size(); ++w) {
    const std::string& word = (*words)[w];
    SbatchDirective d;
    d.line = line_number;
    d.squeeze = kind.squeeze;
    std::string name;
    std::optional<std::string> attached;
    if (word.starts_with("--") && word.size() > 2) {
      const size_t eq = word.find('=');
      name = word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) attached = word.substr(eq + 1);
      d.written = "--" + name;
    } else if (!kind.squeeze && word.size() >= 2 && word[0] == '-' && word[1] != '-') {
      name = word.substr(1, 1);
      if (word.size() > 2) attached = word.substr(2);
      d.written = "-" + name;
    } else {
      return fail("'" + word + "': not an option (a " + std::string(kind.prefix) +
                  " line gives options only" + (kind.squeeze ? ", by their long names)" : ")"));
    }
    const SbatchOption* option = FindIn(*kind.options, name);
    if (option == nullptr && kind.squeeze) {
      return fail(d.written + ": not one of squeeze's options for a script (" +
                  SqueezeOptionNames() + "); sbatch's go on #SBATCH lines");
    }
    if (option == nullptr) {
      return fail(d.written + ": not an sbatch option" + (name.size() > 1 ? Nearest(name) : ""));
    }
    d.option = std::string(option->name);
    switch (option->arity) {
      case SbatchArity::kFlag:
        if (attached) return fail(d.written + ": takes no value (got '" + *attached + "')");
        break;
      case SbatchArity::kOptional:
        d.value = attached;  // only --name=VALUE (or -LVALUE): the next word is not its value
        break;
      case SbatchArity::kValue:
        if (attached) {
          d.value = attached;
        } else if (w + 1 < words->size()) {
          d.value = (*words)[++w];
        } else {
          return fail(d.written + ": needs a value");
        }
        break;
    }
    out.push_back(std::move(d));
  }
  return Status::Ok();
}

}  // namespace

const std::vector<SbatchOption>& SbatchOptions() { return kOptions; }

const std::vector<SbatchOption>& SqueezeScriptOptions() { return kSqueezeOptions; }

const SbatchOption* FindSbatchOption(std::string_view name_or_letter) {
  return FindIn(kOptions, name_or_letter);
}

Result<std::vector<SbatchDirective>> ReadSbatchDirectives(std::string_view script,
                                                          std::string_view source) {
  std::vector<SbatchDirective> out;
  int line_number = 0;
  size_t at = 0;
  while (at <= script.size()) {
    size_t end = script.find('\n', at);
    if (end == std::string_view::npos) end = script.size();
    std::string_view line = script.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      if (end == script.size()) break;
      continue;  // blank
    }
    if (line[first] != '#') break;  // the first command: sbatch reads no further
    const DirectiveKind* kind = nullptr;
    for (const DirectiveKind& k : kDirectiveKinds) {
      const size_t n = k.prefix.size();
      if (line.starts_with(k.prefix) &&
          (line.size() == n || std::isspace(static_cast<unsigned char>(line[n])))) {
        kind = &k;
      }
    }
    if (kind != nullptr) {
      if (Status s = ReadDirectiveLine(line.substr(kind->prefix.size()), line_number, source,
                                       *kind, out);
          !s.ok()) {
        return s;
      }
    }  // else a comment (and "#SBATCHX", which sbatch takes as one too)
    if (end == script.size()) break;
  }
  return out;
}

}  // namespace squeeze
