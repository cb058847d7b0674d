#include "cli/fill_command.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

#include "config/file_io.h"
#include "config/text_util.h"
#include "core/status.h"
#include "sim/fill_experiment.h"
#include "sim/fill_report.h"
#include "sim/readers/openb_reader.h"

namespace squeeze {
namespace {

Result<uint64_t> ParseSeed(const std::string& s, const std::string& whole) {
  uint64_t v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) {
    return Status::Error("--seeds: '" + whole + "' is not a seed or a range FIRST-LAST");
  }
  return v;
}

Status ParseSeeds(const std::string& text, FillExperimentOptions& options) {
  const size_t dash = text.find('-');
  auto first = ParseSeed(text.substr(0, dash), text);
  if (!first.ok()) return first.status();
  auto last = dash == std::string::npos ? first : ParseSeed(text.substr(dash + 1), text);
  if (!last.ok()) return last.status();
  if (*last < *first) return Status::Error("--seeds: '" + text + "' is an empty range");
  if (*last - *first >= 1000) return Status::Error("--seeds: '" + text + "' has over 1000 seeds");
  options.first_seed = *first;
  options.last_seed = *last;
  return Status::Ok();
}

bool WriteOut(const std::string& path, const std::string& text) {
  Status st = WriteWholeFile(path, text);
  if (!st.ok()) std::cerr << "squeeze simulate: " << st.message() << "\n";
  return st.ok();
}

}  // namespace

int RunFillProtocol(const FillFlags& f) {
  auto fail = [](const std::string& message) {
    std::cerr << "squeeze simulate: " << message << "\n";
    return 1;
  };
  if (f.nodes.empty()) return fail("--protocol fill needs --nodes (an openb node list CSV)");
  if (!(f.fill > 0) || f.fill > 10) {
    std::ostringstream value;  // as given: -1, not -1.000000
    value << f.fill;
    return fail("--fill: '" + value.str() + "' is not in (0, 10]");
  }
  FillExperimentOptions options;
  options.fill = f.fill;
  options.placements = SplitList(f.placements, ',');
  if (options.placements.empty()) return fail("--placement: no placement named");
  if (Status st = ParseSeeds(f.seeds, options); !st.ok()) return fail(st.message());
  auto nodes = ReadOpenbNodes(f.nodes);
  if (!nodes.ok()) return fail(nodes.status().message());
  auto pods = ReadOpenbPods(f.trace, ReadOptions{});
  if (!pods.ok()) return fail(pods.status().message());
  if (!f.quiet && isatty(STDERR_FILENO)) {
    options.progress = [](const std::string& placement, uint64_t seed) {
      std::fprintf(stderr, "\r%-12s seed %llu", placement.c_str(),
                   static_cast<unsigned long long>(seed));
    };
  }
  auto outcomes = RunFillExperiment(*pods, *nodes, options);
  if (options.progress) std::fprintf(stderr, "\r%40s\r", "");
  if (!outcomes.ok()) return fail(outcomes.status().message());
  std::cout << FormatFillTable(*outcomes);
  if (!f.json_out.empty() &&
      !WriteOut(f.json_out, FormatFillJson(*outcomes, f.trace, f.nodes, f.fill))) {
    return 1;
  }
  if (!f.svg_out.empty() &&
      !WriteOut(f.svg_out, FillAllocationSvg(*outcomes, "GPU allocation ratio: " + f.trace))) {
    return 1;
  }
  return 0;
}

}  // namespace squeeze
