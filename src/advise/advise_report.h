// The reports of `squeeze advise`: for the terminal, Markdown, a self-contained HTML page with
// inline SVG plots (the load-duration curve, the what-if waits), and JSON with every number.
// Pure.
#ifndef SQUEEZE_ADVISE_ADVISE_REPORT_H_
#define SQUEEZE_ADVISE_ADVISE_REPORT_H_

#include <string>

#include "advise/advice.h"

namespace squeeze {

std::string FormatAdviceText(const Advice& advice);
std::string FormatAdviceMarkdown(const Advice& advice);
std::string FormatAdviceHtml(const Advice& advice);
std::string FormatAdviceJson(const Advice& advice);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_ADVISE_REPORT_H_
