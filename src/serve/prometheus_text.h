// Writing metrics in the Prometheus text exposition format (version 0.0.4): counters, gauges
// and histograms with labels, each family with its HELP and TYPE once. Not thread-safe; build
// one per scrape.
#ifndef SQUEEZE_SERVE_PROMETHEUS_TEXT_H_
#define SQUEEZE_SERVE_PROMETHEUS_TEXT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace squeeze {

using MetricLabels = std::map<std::string, std::string>;

class PrometheusText {
 public:
  void Counter(const std::string& name, const std::string& help, double value,
               const MetricLabels& labels = {});
  void Gauge(const std::string& name, const std::string& help, double value,
             const MetricLabels& labels = {});
  // `bounds` ascending upper bounds (the +Inf bucket is added); `counts[i]` observations in
  // (bounds[i-1], bounds[i]], counts.back() those above the last bound (size bounds + 1).
  void Histogram(const std::string& name, const std::string& help,
                 const std::vector<double>& bounds, const std::vector<uint64_t>& counts,
                 double sum, const MetricLabels& labels = {});
  const std::string& str() const { return out_; }

 private:
  void Family(const std::string& name, const std::string& help, const char* type);
  void Sample(const std::string& name, const MetricLabels& labels, double value);

  std::string out_;
  std::set<std::string> families_;
};

// A label value escaped (\\, \", \n) for the text format.
std::string EscapeLabelValue(const std::string& v);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_PROMETHEUS_TEXT_H_
