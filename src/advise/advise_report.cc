#include "advise/advise_report.h"

#include <algorithm>
#include <fmt/format.h>

#include "advise/advise_sections.h"
#include "advise/advise_svg.h"
#include "sim/xml_escape.h"

namespace squeeze {
namespace {

std::string TextTable(const ReportSection& s) {
  std::vector<size_t> width(s.header.size(), 0);
  auto fit = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  };
  fit(s.header);
  for (const auto& row : s.rows) fit(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      const bool last = i + 1 == row.size();
      out += i == 0 || last ? fmt::format(" {:<{}}", row[i], last ? 0 : width[i])
                            : fmt::format(" {:>{}}", row[i], width[i]);
    }
    return out + "\n";
  };
  std::string out = line(s.header);
  for (const auto& row : s.rows) out += line(row);
  return out;
}

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string MarkdownTable(const ReportSection& s) {
  auto line = [](const std::vector<std::string>& row) {
    std::string out = "|";
    for (const auto& cell : row) out += " " + MarkdownCell(cell) + " |";
    return out + "\n";
  };
  std::string out = line(s.header) + "|";
  for (size_t i = 0; i < s.header.size(); ++i) out += i == 0 ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : s.rows) out += line(row);
  return out;
}

std::string HtmlTable(const ReportSection& s) {
  std::string out = "<table>\n<tr>";
  for (const auto& h : s.header) out += "<th>" + XmlEscape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : s.rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + XmlEscape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string FormatAdviceText(const Advice& advice) {
  std::string out;
  int n = 0;
  for (const ReportSection& s : AdviceSections(advice)) {
    out += fmt::format("{}{}. {}\n", n == 0 ? "" : "\n", n, s.title);
    ++n;
    for (const auto& l : s.lines) out += "  " + l + "\n";
    if (!s.header.empty()) out += TextTable(s);
  }
  return out;
}

std::string FormatAdviceMarkdown(const Advice& advice) {
  std::string out = "# squeeze advise\n\nHistory `" + advice.history + "`, cluster `" +
                    advice.cluster + "`.\n";
  for (const ReportSection& s : AdviceSections(advice)) {
    out += "\n## " + s.title + "\n\n";
    for (const auto& l : s.lines) out += l + "\n\n";
    if (!s.header.empty()) out += MarkdownTable(s);
  }
  return out;
}

std::string FormatAdviceHtml(const Advice& advice) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>squeeze advise</title>\n"
      "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;line-height:1.4}"
      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
      "text-align:right}td:first-child,td:last-child,th:first-child{text-align:left}</style>"
      "</head><body>\n<h1>squeeze advise</h1>\n<p>History <code>" +
      XmlEscape(advice.history) + "</code>, cluster <code>" + XmlEscape(advice.cluster) +
      "</code>.</p>\n";
  for (const ReportSection& s : AdviceSections(advice)) {
    out += "<h2>" + XmlEscape(s.title) + "</h2>\n";
    for (const auto& l : s.lines) out += "<p>" + XmlEscape(l) + "</p>\n";
    if (s.plot == SectionPlot::kLoadCurve && advice.split) {
      out += LoadCurveSvg(*advice.split) + "\n";
    }
    if (s.plot == SectionPlot::kWhatIfWaits) out += WhatIfWaitsSvg(advice.what_ifs) + "\n";
    if (!s.header.empty()) out += HtmlTable(s);
  }
  return out + "</body></html>\n";
}

}  // namespace squeeze
