#include "serve/prometheus_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace squeeze {
namespace {

TEST(PrometheusTextTest, FamiliesSamplesAndHistograms) {
  PrometheusText p;
  p.Gauge("squeeze_queue_length", "Pending jobs by urgency", 3, {{"urgency", "high"}});
  p.Gauge("squeeze_queue_length", "Pending jobs by urgency", 5, {{"urgency", "low"}});
  p.Counter("squeeze_preemptions_total", "Jobs stopped for others", 2);
  p.Histogram("squeeze_wait_seconds", "Queueing delay of started jobs", {1, 60}, {4, 1, 2}, 250.5);
  EXPECT_EQ(p.str(),
            "# HELP squeeze_queue_length Pending jobs by urgency\n"
            "# TYPE squeeze_queue_length gauge\n"
            "squeeze_queue_length{urgency=\"high\"} 3\n"
            "squeeze_queue_length{urgency=\"low\"} 5\n"
            "# HELP squeeze_preemptions_total Jobs stopped for others\n"
            "# TYPE squeeze_preemptions_total counter\n"
            "squeeze_preemptions_total 2\n"
            "# HELP squeeze_wait_seconds Queueing delay of started jobs\n"
            "# TYPE squeeze_wait_seconds histogram\n"
            "squeeze_wait_seconds_bucket{le=\"1\"} 4\n"
            "squeeze_wait_seconds_bucket{le=\"60\"} 5\n"
            "squeeze_wait_seconds_bucket{le=\"+Inf\"} 7\n"
            "squeeze_wait_seconds_sum 250.5\n"
            "squeeze_wait_seconds_count 7\n");
}

TEST(PrometheusTextTest, LabelValuesAreEscaped) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

// The real checker: `promtool check metrics` (Debian package prometheus, installed by
// scripts/setup.sh) must accept what we write.
TEST(PrometheusTextTest, PromtoolAcceptsIt) {
  PrometheusText p;
  p.Gauge("squeeze_gpus", "GPUs by state", 6, {{"state", "allocated"}});
  p.Gauge("squeeze_gpus", "GPUs by state", 2, {{"state", "idle"}});
  p.Counter("squeeze_checkpoints_total", "Checkpoints completed", 9);
  p.Histogram("squeeze_wait_seconds", "Queueing delay", {1, 10, 60, 600}, {1, 2, 3, 4, 5}, 99);
  char path[] = "/tmp/squeeze-metrics-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << p.str();
  const int rc = std::system(("promtool check metrics < " + std::string(path) + " 2>&1").c_str());
  std::remove(path);
  ASSERT_NE(rc, -1);
  EXPECT_EQ(WEXITSTATUS(rc), 0) << "promtool rejected:\n" << p.str();
}

}  // namespace
}  // namespace squeeze
