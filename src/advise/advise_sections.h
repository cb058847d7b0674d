// The advice as sections of sentences and tables, shared by the terminal, Markdown and HTML
// reports (advise_report.h) so the three say the same thing. Pure.
#ifndef SQUEEZE_ADVISE_ADVISE_SECTIONS_H_
#define SQUEEZE_ADVISE_ADVISE_SECTIONS_H_

#include <string>
#include <vector>

#include "advise/advice.h"

namespace squeeze {

enum class SectionPlot { kNone, kLoadCurve, kWhatIfWaits };

struct ReportSection {
  std::string title;
  std::vector<std::string> lines;  // sentences, one paragraph each
  std::vector<std::string> header;  // a table, when not empty
  std::vector<std::vector<std::string>> rows;
  SectionPlot plot = SectionPlot::kNone;
};

std::vector<ReportSection> AdviceSections(const Advice& advice);

// 1234567.8 -> "1,234,568" (decimals 0) or "1,234,567.80" (decimals 2).
std::string Grouped(double value, int decimals = 0);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_ADVISE_SECTIONS_H_
