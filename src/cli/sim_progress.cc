#include "cli/sim_progress.h"

#include <chrono>
#include <cstdio>

namespace squeeze {
namespace {

std::string Grouped(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct PrinterState {
  ProgressStyle style;
  std::ostream* out = nullptr;
  double start = -1;       // wall seconds at the first report
  double last_line = 0;    // wall seconds at the last plain line
  bool wrote_line = false;  // a plain line was written for this run
};

std::string TerminalLine(const std::string& name, const SimProgress& p) {
  char text[160];
  std::snprintf(text, sizeof text, "\r%-16s %5.1f%%  day %.1f, %s waiting, %s running   ",
                name.c_str(), 100 * p.done, ToSeconds(p.now) / 86400, Grouped(p.waiting).c_str(),
                Grouped(p.running).c_str());
  return text;
}

void Report(PrinterState& s, const SimProgress& p) {
  const double now = s.style.clock();
  if (s.start < 0) s.start = s.last_line = now;
  if (s.style.terminal) {
    *s.out << TerminalLine(s.style.name, p) << (p.end ? "\n" : "") << std::flush;
    return;
  }
  // The last report of a run gets a line only when earlier ones did (or every report does): a
  // short run stays quiet.
  const bool every = s.style.every_s <= 0;
  const bool due = p.end ? s.wrote_line || every : every || now - s.last_line >= s.style.every_s;
  if (!due) return;
  *s.out << s.style.prefix << PlainProgressLine(s.style.name, p, now - s.start) << "\n"
         << std::flush;
  s.last_line = now;
  s.wrote_line = true;
}

}  // namespace

std::string PlainProgressLine(const std::string& name, const SimProgress& p, double wall_s) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s: day %.1f, %s of %s jobs done (%.1f%%), %s waiting, %s running, %.0f s%s",
                name.c_str(), ToSeconds(p.now) / 86400, Grouped(p.finished).c_str(),
                Grouped(p.jobs).c_str(), 100 * p.done, Grouped(p.waiting).c_str(),
                Grouped(p.running).c_str(), wall_s, p.end ? ", finished" : "");
  return text;
}

std::function<void(const SimProgress&)> MakeProgressPrinter(ProgressStyle style,
                                                            std::ostream* out) {
  auto state = std::make_shared<PrinterState>();
  if (!style.clock) style.clock = SteadySeconds;
  state->style = std::move(style);
  state->out = out;
  return [state](const SimProgress& p) { Report(*state, p); };
}

}  // namespace squeeze
