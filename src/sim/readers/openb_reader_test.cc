#include "sim/readers/openb_reader.h"

#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kNodeHeader[] = "sn,cpu_milli,memory_mib,gpu,model\n";
constexpr char kPodHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";
#define OPENB_DIR SQUEEZE_SHARED_DIR "/traces/openb/"

std::string NodeError(const std::string& text) {
  Result<ClusterSpec> r = ParseOpenbNodes(text, "n.csv");
  return r.ok() ? "(parsed without error)" : r.status().message();
}

Result<Trace> ParsePods(const std::string& text, ReadOptions options = {}) {
  return ParseOpenbPods(text, "p.csv", options);
}

std::string PodError(const std::string& text, ReadOptions options = {}) {
  Result<Trace> r = ParsePods(text, options);
  return r.ok() ? "(parsed without error)" : r.status().message();
}

void ExpectNode(const NodeSpec& n, const std::string& name, const std::string& pool,
                const std::string& model, int gpus, int64_t cpu, int64_t memory) {
  SCOPED_TRACE("node " + name);
  EXPECT_EQ(n.name, name);
  EXPECT_EQ(n.pool, pool);
  EXPECT_EQ(n.gpu_model, model);
  EXPECT_EQ(n.gpus, gpus);
  EXPECT_EQ(n.cpu_milli, cpu);
  EXPECT_EQ(n.memory_mib, memory);
  EXPECT_EQ(n.gpu_memory_mib, 0);
  EXPECT_TRUE(n.labels.empty());
}

struct Pod {
  JobId id;
  std::string name;
  int gpus;
  int gpu_milli;
  int64_t cpu_milli;
  int64_t memory_mib;
  std::vector<std::string> models;
  int64_t submit_s;  // seconds, as the file gives them
  int64_t duration_s;
};

void ExpectPod(const TraceJob& job, const Pod& want) {
  SCOPED_TRACE("pod " + want.name);
  EXPECT_EQ(job.spec.id, want.id);
  EXPECT_EQ(job.spec.name, want.name);
  EXPECT_EQ(job.spec.gpus, want.gpus);
  EXPECT_EQ(job.spec.gpu_milli, want.gpu_milli);
  EXPECT_EQ(job.spec.cpu_milli, want.cpu_milli);
  EXPECT_EQ(job.spec.memory_mib, want.memory_mib);
  EXPECT_EQ(job.spec.gpu_models, want.models);
  EXPECT_EQ(job.spec.submit_time, Seconds(want.submit_s));
  EXPECT_EQ(job.duration, Seconds(want.duration_s));
  EXPECT_EQ(job.spec.pool, "");
  EXPECT_EQ(job.spec.team, "");
  EXPECT_TRUE(job.spec.preemptible);
  EXPECT_TRUE(job.spec.checkpointable);
}

TEST(OpenbNodesTest, ParsesRowsInFileOrder) {
  Result<ClusterSpec> r = ParseOpenbNodes(std::string(kNodeHeader) +
                                              "openb-node-0227,32000,262144,0,\n"
                                              "openb-node-0228,128000,786432,8,G3\n"
                                              "openb-node-0229,96000,786432,8,V100M32\n"
                                              "openb-node-0300,8000,65536,0,nan\n",
                                          "n.csv", "alibaba");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pools.size(), 1u);
  EXPECT_EQ(r->pools[0].name, "alibaba");
  EXPECT_EQ(r->pools[0].kind, PoolKind::kOwned);
  ASSERT_EQ(r->nodes.size(), 4u);
  ExpectNode(r->nodes[0], "openb-node-0227", "alibaba", "none", 0, 32000, 262144);
  ExpectNode(r->nodes[1], "openb-node-0228", "alibaba", "G3", 8, 128000, 786432);
  ExpectNode(r->nodes[2], "openb-node-0229", "alibaba", "V100M32", 8, 96000, 786432);
  ExpectNode(r->nodes[3], "openb-node-0300", "alibaba", "none", 0, 8000, 65536);
  EXPECT_EQ(r->TotalGpus(), 16);
  EXPECT_TRUE(r->Validate().ok());
}

TEST(OpenbNodesTest, ColumnsInAnyOrderAndCase) {
  Result<ClusterSpec> r = ParseOpenbNodes("Model, GPU ,sn,memory_mib,cpu_milli\nT4,2,a,1024,4000\n",
                                          "n.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->pools[0].name, "openb");
  ExpectNode(r->nodes[0], "a", "openb", "T4", 2, 4000, 1024);
}

TEST(OpenbNodesTest, BrokenInputsNameLineColumnAndValue) {
  const std::string h = kNodeHeader;
  EXPECT_EQ(NodeError(h + "a,32000,1024,2,T4\nb,32000,1024,x,T4\n"),
            "n.csv:3: column 'gpu': value 'x' is not an integer");
  EXPECT_EQ(NodeError(h + "a,-1,1024,2,T4\n"),
            "n.csv:2: column 'cpu_milli': value '-1' must be >= 0");
  EXPECT_EQ(NodeError(h + "a,1,-1024,2,T4\n"),
            "n.csv:2: column 'memory_mib': value '-1024' must be >= 0");
  EXPECT_EQ(NodeError(h + "a,1,1024,65,T4\n"),
            "n.csv:2: column 'gpu': value '65' must be <= 64");
  EXPECT_EQ(NodeError(h + "a,1,1024,2,\n"),
            "n.csv:2: column 'model': value '' names no GPU model for a node with 2 GPUs");
  EXPECT_EQ(NodeError(h + "a,1,1024,2,T4\na,1,1024,2,T4\n"),
            "n.csv:3: column 'sn': value 'a' is a duplicate node name (first on line 2)");
  EXPECT_EQ(NodeError(h + ",1,1024,2,T4\n"),
            "n.csv:2: column 'sn': value '' is empty (every node needs a name)");
  EXPECT_EQ(NodeError(h + "a,1,1024,2\n"), "n.csv:2: row has 4 fields but the header has 5");
  EXPECT_THAT(NodeError("sn,cpu_milli,memory_mib,model\na,1,1,T4\n"),
              HasSubstr("n.csv:1: missing required column 'gpu'"));
  EXPECT_THAT(NodeError("sn,cpu_milli,memory_mib,gpu,model,rack\n"),
              HasSubstr("n.csv:1: unknown column 'rack' in a openb-nodes file"));
  EXPECT_EQ(NodeError(h), "n.csv: no nodes: the file has a header but no rows");
  EXPECT_EQ(NodeError(""), "n.csv: no nodes: the file is empty");
}

TEST(OpenbNodesTest, RealGpuNodeList) {
  Result<ClusterSpec> r = ReadOpenbNodes(OPENB_DIR "openb_node_list_gpu_node.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->nodes.size(), 1213u);
  EXPECT_EQ(r->TotalGpus(), 6212);
  // Found with awk over the CSV: per model, nodes and GPUs.
  std::map<std::string, std::pair<int, int>> mix;
  int64_t cpu = 0, memory = 0;
  for (const NodeSpec& n : r->nodes) {
    ++mix[n.gpu_model].first;
    mix[n.gpu_model].second += n.gpus;
    cpu += n.cpu_milli;
    memory += n.memory_mib;
    EXPECT_EQ(n.pool, "openb");
  }
  const std::map<std::string, std::pair<int, int>> want = {
      {"A10", {2, 2}},     {"G2", {549, 4392}},    {"G3", {39, 312}},  {"P100", {134, 265}},
      {"T4", {404, 842}},  {"V100M16", {55, 195}}, {"V100M32", {30, 204}},
  };
  EXPECT_EQ(mix, want);
  EXPECT_EQ(cpu, 107'018'000);  // PROTOCOL.md: 107,018 CPU cores
  EXPECT_EQ(memory, 503'828'480);
  EXPECT_EQ(r->nodes.front().name, "openb-node-0000");
  EXPECT_EQ(r->nodes.front().gpu_model, "P100");
}

TEST(OpenbNodesTest, RealAllNodeListKeepsCpuOnlyNodes) {
  Result<ClusterSpec> r = ReadOpenbNodes(OPENB_DIR "openb_node_list_all_node.csv", "all");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->nodes.size(), 1523u);
  EXPECT_EQ(r->TotalGpus(), 6212);
  int cpu_only = 0;
  for (const NodeSpec& n : r->nodes) {
    if (n.gpus == 0) {
      ++cpu_only;
      EXPECT_EQ(n.gpu_model, "none");
    }
  }
  EXPECT_EQ(cpu_only, 310);
}

TEST(OpenbNodesTest, MissingFile) {
  Result<ClusterSpec> r = ReadOpenbNodes(OPENB_DIR "no_such_file.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cannot open"));
  EXPECT_THAT(r.status().message(), HasSubstr("no_such_file.csv"));
}

TEST(OpenbPodsTest, ParsesRowsInFileOrder) {
  Result<Trace> r = ParsePods(std::string(kPodHeader) +
                              "p0,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,"
                              "9437497\n"
                              "p1,4000,15258,1,220,,BE,Running,9679175,9973826,9679175\n"
                              "p2,16000,32768,1,1000,V100M16|V100M32,LS,Running,9967058,9968575,"
                              "9967063\n"
                              "p3,8000,30517,0,0,,BE,Pending,100,,\n"
                              "p4,2000,1024,1,500,nan,LS,Unknown,50,40,45\n"
                              "p5,2000,1024,2,1000, T4 | ,LS,Failed,60,60,60\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "openb-pods");
  EXPECT_EQ(r->source, "p.csv");
  EXPECT_EQ(r->skipped_rows, 0);
  ASSERT_EQ(r->jobs.size(), 6u);
  // File order, although the creation times are not sorted.
  ExpectPod(r->jobs[0], {0, "p0", 8, 1000, 88000, 327680, {}, 9437497, 1332357});
  ExpectPod(r->jobs[1], {1, "p1", 1, 220, 4000, 15258, {}, 9679175, 294651});
  ExpectPod(r->jobs[2], {2, "p2", 1, 1000, 16000, 32768, {"V100M16", "V100M32"}, 9967058, 1512});
  ExpectPod(r->jobs[3], {3, "p3", 0, 1000, 8000, 30517, {}, 100, 1});
  ExpectPod(r->jobs[4], {4, "p4", 1, 500, 2000, 1024, {}, 50, 1});  // deleted before scheduled
  ExpectPod(r->jobs[5], {5, "p5", 2, 1000, 2000, 1024, {"T4"}, 60, 1});
}

TEST(OpenbPodsTest, OnlyTheResourceColumnsAreRequired) {
  // The multigpu pod lists have only these five columns.
  Result<Trace> r = ParsePods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                              "a,12000,16384,1,1000\nb,6000,12288,1,460\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->jobs.size(), 2u);
  ExpectPod(r->jobs[0], {0, "a", 1, 1000, 12000, 16384, {}, 0, 1});
  ExpectPod(r->jobs[1], {1, "b", 1, 460, 6000, 12288, {}, 0, 1});
  EXPECT_THAT(PodError("name,cpu_milli,memory_mib,gpu_milli\na,1,1,1000\n"),
              HasSubstr("p.csv:1: missing required column 'num_gpu'"));
}

TEST(OpenbPodsTest, BrokenInputsNameLineColumnAndValue) {
  const std::string h = kPodHeader;
  EXPECT_EQ(PodError(h + "a,1,1,1,1000,,LS,Running,0,1,0\nb,1,1,x,1000,,LS,Running,0,1,0\n"),
            "p.csv:3: column 'num_gpu': value 'x' is not an integer");
  EXPECT_EQ(PodError(h + "a,1,1,2,500,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'gpu_milli': value '500' is a fraction of a GPU with num_gpu 2 (a "
            "fraction is only meaningful with num_gpu 1)");
  EXPECT_EQ(PodError(h + "a,-4000,1,1,1000,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'cpu_milli': value '-4000' must be >= 0");
  EXPECT_EQ(PodError(h + "a,1,-1,1,1000,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'memory_mib': value '-1' must be >= 0");
  EXPECT_EQ(PodError(h + "a,1,1,-1,1000,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'num_gpu': value '-1' must be >= 0");
  EXPECT_EQ(PodError(h + "a,1,1,1,0,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'gpu_milli': value '0' must be >= 1");
  EXPECT_EQ(PodError(h + "a,1,1,1,1500,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'gpu_milli': value '1500' must be <= 1000");
  EXPECT_EQ(PodError(h + "a,1,1,0,,,LS,Running,0,1,0\n"),
            "p.csv:2: column 'gpu_milli': value '' is empty");
  EXPECT_EQ(PodError(h + "a,1,1,1,1000,,LS,Running,-5,1,0\n"),
            "p.csv:2: column 'creation_time': value '-5' must be >= 0");
  EXPECT_EQ(PodError(h + "a,1,1,1,1000,,LS,Running,,1,0\n"),
            "p.csv:2: column 'creation_time': value '' is empty");
  EXPECT_EQ(PodError(h + "a,1,1,1,1000,,LS,Running,0,1.5,0\n"),
            "p.csv:2: column 'deletion_time': value '1.5' is not an integer");
  EXPECT_EQ(PodError(h + "a,1,1,1,1000,,LS,Running,0,9,-1\n"),
            "p.csv:2: column 'scheduled_time': value '-1' must be >= 0");
  EXPECT_EQ(PodError(h + "a,1,1,1,1000\n"), "p.csv:2: row has 5 fields but the header has 11");
  EXPECT_THAT(PodError("name,cpu_milli,memory_mib,num_gpu,gpu_milli,team\n"),
              HasSubstr("p.csv:1: unknown column 'team' in a openb-pods file"));
  EXPECT_EQ(PodError(h), "p.csv: no jobs: the file has a header but no rows");
  EXPECT_EQ(PodError(""), "p.csv: no jobs: the file is empty");
}

TEST(OpenbPodsTest, SkipsBadRowsWhenAsked) {
  const std::string text = std::string(kPodHeader) +
                           "a,1,1,1,1000,,LS,Running,30,40,30\n"
                           "b,1,1,2,250,,LS,Running,10,20,10\n"
                           "c,1,1,1,250,,LS,Running,20,25,20\n";
  EXPECT_EQ(PodError(text), "p.csv:3: column 'gpu_milli': value '250' is a fraction of a GPU "
                            "with num_gpu 2 (a fraction is only meaningful with num_gpu 1)");
  ReadOptions skip;
  skip.skip_bad_rows = true;
  skip.default_preemptible = false;
  Result<Trace> r = ParsePods(text, skip);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->skipped_rows, 1);
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_THAT(r->skipped[0], HasSubstr("p.csv:3: column 'gpu_milli': value '250'"));
  ASSERT_EQ(r->jobs.size(), 2u);
  // The skipped row keeps its index: ids are row indexes, not job counts.
  EXPECT_EQ(r->jobs[0].spec.id, 0);
  EXPECT_EQ(r->jobs[1].spec.id, 2);
  EXPECT_EQ(r->jobs[1].spec.gpu_milli, 250);
  EXPECT_FALSE(r->jobs[0].spec.preemptible);
  EXPECT_THAT(PodError(std::string(kPodHeader) + "a,x,1,1,1000,,LS,Running,0,1,0\n", skip),
              HasSubstr("p.csv: no jobs: all 1 rows were skipped as bad; the first: p.csv:2"));
}

struct PodTotals {
  size_t pods = 0;
  int64_t gpu_milli = 0;  // sum of num_gpu * gpu_milli over pods with GPUs
  int64_t gpus = 0;
  int cpu_only = 0;
  int fractional = 0;
  int with_models = 0;
  int64_t duration_s = 0;
};

PodTotals Totals(const Trace& trace) {
  PodTotals t;
  t.pods = trace.jobs.size();
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobSpec& spec = trace.jobs[i].spec;
    EXPECT_EQ(spec.id, static_cast<JobId>(i));
    if (spec.gpus > 0) t.gpu_milli += spec.TotalMilli();
    t.gpus += spec.gpus;
    t.cpu_only += spec.gpus == 0;
    t.fractional += spec.gpus == 1 && spec.gpu_milli < kMilliPerGpu;
    t.with_models += !spec.gpu_models.empty();
    t.duration_s += WholeSeconds(trace.jobs[i].duration);
  }
  return t;
}

// The figures below were computed with awk over the CSVs, independently of the reader.
TEST(OpenbPodsTest, RealDefaultPodList) {
  Result<Trace> r = ReadOpenbPods(OPENB_DIR "openb_pod_list_default.csv", ReadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "openb-pods");
  const PodTotals t = Totals(*r);
  EXPECT_EQ(t.pods, 8152u);
  EXPECT_EQ(t.gpu_milli, 6'086'800);  // 98.0% of 6,212 GPUs, as PROTOCOL.md says
  EXPECT_EQ(t.gpus, 7433);
  EXPECT_EQ(t.cpu_only, 1088);
  EXPECT_EQ(t.fractional, 3078);
  EXPECT_EQ(t.with_models, 0);
  EXPECT_EQ(t.duration_s, 210'029'239);
  ExpectPod(r->jobs[1], {1, "openb-pod-0001", 1, 460, 6000, 12288, {}, 427061, 12475899});
  ExpectPod(r->jobs[17], {17, "openb-pod-0017", 8, 1000, 88000, 327680, {}, 9437497, 1332357});
}

TEST(OpenbPodsTest, RealGpushare40KeepsFileOrder) {
  Result<Trace> r = ReadOpenbPods(OPENB_DIR "openb_pod_list_gpushare40.csv", ReadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const PodTotals t = Totals(*r);
  EXPECT_EQ(t.pods, 8152u);
  EXPECT_EQ(t.gpu_milli, 5'641'250);
  EXPECT_EQ(t.fractional, 4001);
  // The first place where the creation times go down.
  EXPECT_EQ(r->jobs[1087].spec.submit_time, Seconds(12881312));
  EXPECT_EQ(r->jobs[1088].spec.name, "openb-pod-1088");
  EXPECT_EQ(r->jobs[1088].spec.submit_time, Seconds(10647871));
}

TEST(OpenbPodsTest, RealGpuspec10AndMultigpu20) {
  Result<Trace> spec = ReadOpenbPods(OPENB_DIR "openb_pod_list_gpuspec10.csv", ReadOptions{});
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(Totals(*spec).with_models, 732);
  EXPECT_EQ(Totals(*spec).gpu_milli, 6'086'800);
  EXPECT_THAT(spec->jobs[31].spec.gpu_models, ElementsAre("V100M16", "V100M32", "V100M32"));
  Result<Trace> multi = ReadOpenbPods(OPENB_DIR "openb_pod_list_multigpu20.csv", ReadOptions{});
  ASSERT_TRUE(multi.ok()) << multi.status().message();
  const PodTotals t = Totals(*multi);
  EXPECT_EQ(t.pods, 8324u);
  EXPECT_EQ(t.gpu_milli, 7'086'800);
  EXPECT_EQ(t.duration_s, 8324);  // no times in this list: every pod lasts 1 s, submitted at 0
  Result<Trace> cpu = ReadOpenbPods(OPENB_DIR "openb_pod_list_cpu050.csv", ReadOptions{});
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(Totals(*cpu).pods, 7439u);
  EXPECT_EQ(Totals(*cpu).cpu_only, 375);
}

}  // namespace
}  // namespace squeeze
