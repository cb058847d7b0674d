#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "config/cluster_file.h"
#include "config/file_io.h"
#include "core/duration.h"
#include "core/idle/idle_analysis.h"
#include "sim/gpu_sample_generator.h"
#include "sim/idle_heatmap_svg.h"
#include "sim/idle_report.h"
#include "sim/readers/gpu_samples_reader.h"
#include "store/gpu_sample_store.h"

namespace squeeze {
namespace {

struct IdleReportFlags {
  std::string samples;
  std::string store;
  std::string since;
  std::string cluster;
  IdleOptions options;
  std::string svg_out;
  bool json = false;
  std::string generate_out;
  int weeks = 4;
  uint64_t seed = 1;
};

int Fail(const std::string& message) {
  std::cerr << "squeeze idle-report: " << message << "\n";
  return 1;
}

// "7d", "36h", "4w" (weeks), or what ParseDuration reads.
Result<Time> ParseSince(const std::string& text) {
  if (text.size() >= 2 && text.back() == 'w') {
    auto weeks = ParseDuration(text.substr(0, text.size() - 1) + "d");
    if (weeks.ok()) return *weeks * 7;
  }
  auto d = ParseDuration(text);
  if (!d.ok() || *d <= 0) {
    return Status::Error("--since '" + text + "': expected a positive duration such as 7d, 36h "
                         "or 4w");
  }
  return *d;
}

int Generate(const IdleReportFlags& f) {
  if (f.weeks < 1 || f.weeks > 520) return Fail("--weeks must be 1 to 520");
  std::mt19937_64 rng(f.seed);
  const auto samples = GenerateSamples(DemoSampleSpec(f.weeks), rng);
  if (Status st = WriteWholeFile(f.generate_out, SamplesCsv(samples)); !st.ok()) {
    return Fail(st.message());
  }
  std::cout << "wrote " << samples.size() << " samples (" << f.weeks
            << " weeks, 3 nodes x 8 GPUs, every 5 minutes) to " << f.generate_out
            << "\nplanted: node-1 GPUs 0-7 idle Mon-Fri 01:00-07:00; node-2 GPUs 0-3 idle "
               "Sat-Sun all day;\n         node-2 GPUs 4-7 idle Wed 12:00-16:00 except in weeks "
               "2 and 4; node-3 never idle\n";
  return 0;
}

Result<std::map<std::string, std::string>> PoolOfNode(const std::string& cluster_path) {
  std::map<std::string, std::string> pool_of;
  if (cluster_path.empty()) return pool_of;
  auto cluster = LoadClusterFile(cluster_path);
  if (!cluster.ok()) return cluster.status();
  for (const NodeSpec& n : cluster->nodes) pool_of[n.name] = n.pool;
  return pool_of;
}

// Every sample a daemon's store keeps (hourly summaries and recent raw samples).
Result<std::vector<GpuSample>> ReadStoreSamples(const std::string& path) {
  GpuSampleStore::Options options;
  options.read_only = true;
  auto store = GpuSampleStore::Open(path, options);
  if (!store.ok()) return store.status().WithContext("--store");
  auto samples = (*store)->Read(0, kNever);
  if (!samples.ok()) return samples.status().WithContext("--store " + path);
  if (samples->empty()) {
    return Status::Error("--store " + path + ": no GPU utilization samples yet (squeeze serve "
                         "keeps those telemetry reports with a utilization)");
  }
  return samples;
}

int RunIdleReport(const IdleReportFlags& f) {
  if (!f.generate_out.empty()) return Generate(f);
  if (f.samples.empty() == f.store.empty()) {
    return Fail("give --samples FILE or --store DIR (or --generate-samples OUT.csv)");
  }
  auto samples = f.store.empty() ? ReadGpuSamples(f.samples) : ReadStoreSamples(f.store);
  if (!samples.ok()) return Fail(samples.status().message());
  if (!f.since.empty()) {
    auto since = ParseSince(f.since);
    if (!since.ok()) return Fail(since.status().message());
    Time last = samples->front().time;
    for (const GpuSample& s : *samples) last = std::max(last, s.time);
    std::erase_if(*samples, [&](const GpuSample& s) { return s.time <= last - *since; });
  }
  auto pool_of = PoolOfNode(f.cluster);
  if (!pool_of.ok()) return Fail(pool_of.status().message());
  auto analysis = AnalyseIdle(*samples, f.options, *pool_of);
  if (!analysis.ok()) return Fail(analysis.status().message());
  std::cout << (f.json ? FormatIdleJson(*analysis) : FormatIdleText(*analysis));
  if (!f.svg_out.empty()) {
    if (Status st = WriteWholeFile(f.svg_out, FormatIdleHeatmapSvg(*analysis)); !st.ok()) {
      return Fail(st.message());
    }
  }
  return 0;
}

}  // namespace

CommandRun RegisterIdleReport(CLI::App& app) {
  auto f = std::make_shared<IdleReportFlags>();
  app.add_option("--samples", f->samples,
                 "GPU utilization samples: CSV time,node,gpu,utilization[,memory_used_mib]");
  app.add_option("--store", f->store,
                 "Instead: the samples a squeeze serve kept, from its data directory (or its "
                 "squeeze.db)");
  app.add_option("--since", f->since,
                 "Only the samples of this span before the last one: 7d, 36h, 4w");
  app.add_option("--cluster", f->cluster,
                 "Cluster file naming each node's pool (default: every node in pool \"all\")");
  app.add_option("--threshold", f->options.threshold,
                 "An hour is idle when the mean utilization is below this (0..1)")
      ->capture_default_str();
  app.add_option("--probability", f->options.probability,
                 "A window's hours are idle in at least this share of the observed weeks")
      ->capture_default_str();
  app.add_option("--min-weeks", f->options.min_weeks,
                 "A window's hours are observed in at least this many weeks")
      ->capture_default_str();
  app.add_option("--min-coverage", f->options.min_coverage,
                 "An hour counts for a GPU when its samples cover at least this share of it")
      ->capture_default_str();
  app.add_option("--svg", f->svg_out, "Write the hour-of-week heatmaps as SVG to this file");
  app.add_flag("--json", f->json, "Print the windows as JSON instead of text");
  app.add_option("--generate-samples", f->generate_out,
                 "Instead: write generated samples with planted idle windows to this CSV file");
  app.add_option("--weeks", f->weeks, "With --generate-samples: how many weeks")
      ->capture_default_str();
  app.add_option("--seed", f->seed, "With --generate-samples: the random seed")
      ->capture_default_str();
  return [f] { return RunIdleReport(*f); };
}

}  // namespace squeeze
