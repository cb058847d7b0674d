#include "serve/prometheus_text.h"

#include <cmath>
#include <cstdio>

namespace squeeze {
namespace {

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string EscapeHelp(const std::string& h) {
  std::string out;
  for (char c : h) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PrometheusText::Family(const std::string& name, const std::string& help, const char* type) {
  if (!families_.insert(name).second) return;
  out_ += "# HELP " + name + " " + EscapeHelp(help) + "\n";
  out_ += "# TYPE " + name + " " + type + "\n";
}

void PrometheusText::Sample(const std::string& name, const MetricLabels& labels, double value) {
  out_ += name;
  if (!labels.empty()) {
    out_ += "{";
    bool first = true;
    for (const auto& [k, v] : labels) {
      out_ += (first ? "" : ",") + k + "=\"" + EscapeLabelValue(v) + "\"";
      first = false;
    }
    out_ += "}";
  }
  out_ += " " + Number(value) + "\n";
}

void PrometheusText::Counter(const std::string& name, const std::string& help, double value,
                             const MetricLabels& labels) {
  Family(name, help, "counter");
  Sample(name, labels, value);
}

void PrometheusText::Gauge(const std::string& name, const std::string& help, double value,
                           const MetricLabels& labels) {
  Family(name, help, "gauge");
  Sample(name, labels, value);
}

void PrometheusText::Histogram(const std::string& name, const std::string& help,
                               const std::vector<double>& bounds,
                               const std::vector<uint64_t>& counts, double sum,
                               const MetricLabels& labels) {
  Family(name, help, "histogram");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    MetricLabels with_le = labels;
    with_le["le"] = i < bounds.size() ? Number(bounds[i]) : "+Inf";
    Sample(name + "_bucket", with_le, static_cast<double>(cumulative));
  }
  Sample(name + "_sum", labels, sum);
  Sample(name + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace squeeze
