#include "core/idle/idle_lines.h"

#include <algorithm>

namespace squeeze {
namespace {

constexpr int kHoursPerDay = 24;

bool Follows(const IdleLine& line, const IdleWindow& w) {
  return line.length_hours < kHoursPerDay && w.length_hours == line.length_hours &&
         line.days < 7 && w.start_hour == (line.start_hour + line.days * kHoursPerDay) % kHoursPerWeek;
}

IdleLine LineOf(const IdleWindow& w) {
  return IdleLine{w.start_hour, w.length_hours, 1, w.idle_weeks, w.observed_weeks};
}

void Absorb(IdleLine& line, int idle_weeks, int observed_weeks) {
  line.idle_weeks = std::min(line.idle_weeks, idle_weeks);
  line.observed_weeks = std::max(line.observed_weeks, observed_weeks);
}

std::string DayRange(int first_day, int days) {
  if (days >= 7) return "every day";
  if (days == 1) return DayName(first_day);
  return DayName(first_day) + "-" + DayName(first_day + days - 1);
}

}  // namespace

std::string IdleLine::When() const {
  const int first_day = start_hour / kHoursPerDay;
  const int hour_of_day = start_hour % kHoursPerDay;
  if (length_hours >= kHoursPerWeek) return "all week";
  if (length_hours < kHoursPerDay) {
    const int end = hour_of_day + length_hours;
    return DayRange(first_day, days) + " " + HourText(hour_of_day) + "-" +
           HourText(end > kHoursPerDay ? end - kHoursPerDay : end);
  }
  if (hour_of_day == 0 && length_hours % kHoursPerDay == 0) {
    return DayRange(first_day, length_hours / kHoursPerDay) + " all day";
  }
  const int end = (start_hour + length_hours) % kHoursPerWeek;
  return DayName(first_day) + " " + HourText(hour_of_day) + "-" + DayName(end / kHoursPerDay) +
         " " + HourText(end % kHoursPerDay);
}

std::string IdleLine::Text() const {
  return When() + " in " + std::to_string(idle_weeks) + " of " + std::to_string(observed_weeks) +
         " weeks";
}

std::vector<IdleLine> MergeDaily(const std::vector<IdleWindow>& windows) {
  std::vector<IdleWindow> sorted = windows;
  std::sort(sorted.begin(), sorted.end(),
            [](const IdleWindow& a, const IdleWindow& b) { return a.start_hour < b.start_hour; });
  std::vector<IdleLine> lines;
  for (const IdleWindow& w : sorted) {
    if (!lines.empty() && Follows(lines.back(), w)) {
      ++lines.back().days;
      Absorb(lines.back(), w.idle_weeks, w.observed_weeks);
    } else {
      lines.push_back(LineOf(w));
    }
  }
  if (lines.size() >= 2) {
    IdleLine& last = lines.back();
    IdleLine& first = lines.front();
    const IdleWindow first_window{first.start_hour, first.length_hours, first.idle_weeks,
                                  first.observed_weeks};
    if (last.days + first.days <= 7 && Follows(last, first_window) &&
        first.length_hours == last.length_hours) {
      last.days += first.days;
      Absorb(last, first.idle_weeks, first.observed_weeks);
      lines.erase(lines.begin());
    }
  }
  return lines;
}

std::vector<GpuGroup> GroupGpus(const NodeIdle& node) {
  std::vector<GpuGroup> groups;
  for (const GpuIdle& gpu : node.gpus) {
    if (gpu.windows.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GpuGroup& g) { return g.windows == gpu.windows; });
    if (it == groups.end()) {
      groups.push_back({{gpu.gpu}, gpu.windows});
    } else {
      it->gpus.push_back(gpu.gpu);
    }
  }
  return groups;
}

std::string GpuListText(const std::vector<int>& gpus) {
  std::string text = gpus.size() == 1 ? "GPU " : "GPUs ";
  for (size_t i = 0; i < gpus.size();) {
    size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    if (i > 0) text += ",";
    text += std::to_string(gpus[i]);
    if (j > i) text += "-" + std::to_string(gpus[j]);
    i = j + 1;
  }
  return text;
}

std::vector<std::string> GpuGroupLines(const NodeIdle& node) {
  std::vector<std::string> out;
  for (const GpuGroup& g : GroupGpus(node)) {
    for (const IdleLine& l : MergeDaily(g.windows)) {
      out.push_back(node.name + " " + GpuListText(g.gpus) + ": idle " + l.Text());
    }
  }
  return out;
}

std::vector<std::string> IdleLinesOf(const std::string& who, const std::vector<IdleWindow>& windows) {
  std::vector<std::string> out;
  for (const IdleLine& l : MergeDaily(windows)) out.push_back(who + ": idle " + l.Text());
  return out;
}

std::vector<std::string> IdleWindowLines(const IdleAnalysis& a) {
  std::vector<std::string> out;
  for (const NodeIdle& n : a.nodes) {
    for (std::string& l : GpuGroupLines(n)) out.push_back(std::move(l));
  }
  for (const NodeIdle& n : a.nodes) {
    for (std::string& l : IdleLinesOf("node " + n.name, n.windows)) out.push_back(std::move(l));
  }
  for (const PoolIdle& p : a.pools) {
    for (std::string& l : IdleLinesOf("pool " + p.name, p.windows)) out.push_back(std::move(l));
  }
  return out;
}

}  // namespace squeeze
