#include "export/job_export.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "config/job_file.h"
#include "export/export_test_clusters.h"

namespace squeeze {
namespace {

JobToExport Job(const std::string& yaml, const std::string& source = "job.yaml") {
  auto r = ParseJobYaml(yaml, source, 0);
  EXPECT_TRUE(r.ok()) << r.status().message();
  JobToExport job;
  if (r.ok()) job.request = *r;
  job.source = source;
  job.workdir_given = !job.request.workdir.empty();
  return job;
}

Result<std::string> Export(const std::vector<JobToExport>& jobs, ExportTarget target,
                           const ClusterSpec& cluster = TwoTeamsRacks()) {
  return ExportJobs(cluster, TwoTeamsOptions(), jobs, "ghcr.io/ex/train:v1", target);
}

// The value of environment variable `name` in a pod spec's first container ("" if absent;
// "from:<fieldPath>" for one taken from the pod).
std::string Env(const YAML::Node& pod, const std::string& name) {
  for (const YAML::Node& e : pod["containers"][0]["env"]) {
    if (e["name"].as<std::string>() != name) continue;
    if (e["valueFrom"]) return "from:" + e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>();
    return e["value"].as<std::string>();
  }
  return "";
}

constexpr const char* kRackJob =
    "name: llm\ncommand: [python, train.py]\ngpus: 16\nteam: nlp\nurgency: high\n"
    "topology: required:rack\ncpus: 32\nmemory: 256GiB\n";

TEST(KueueJobTest, SeveralNodesAreIndexedPodsWithTheirQueueTopologyAndService) {
  auto text = Export({Job(kRackJob)}, ExportTarget::kKueue);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  ASSERT_EQ(docs.size(), 2u) << *text;
  const YAML::Node job = docs.at("Job/nlp/llm");
  EXPECT_EQ(job["apiVersion"].as<std::string>(), "batch/v1");
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"].as<std::string>(), "team-nlp");
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"].as<std::string>(),
            "squeeze-high");
  const YAML::Node spec = job["spec"];
  EXPECT_TRUE(spec["suspend"].as<bool>());
  EXPECT_EQ(spec["parallelism"].as<int>(), 2);
  EXPECT_EQ(spec["completions"].as<int>(), 2);
  EXPECT_EQ(spec["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(spec["template"]["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"]
                .as<std::string>(),
            "squeeze.dev/rack");
  const YAML::Node pod = spec["template"]["spec"];
  EXPECT_EQ(pod["subdomain"].as<std::string>(), "llm");
  EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never");
  const YAML::Node res = pod["containers"][0]["resources"];
  EXPECT_EQ(res["limits"]["nvidia.com/gpu"].as<int>(), 8);
  EXPECT_EQ(res["requests"]["cpu"].as<std::string>(), "16");
  EXPECT_EQ(res["requests"]["memory"].as<std::string>(), "128Gi");
  EXPECT_EQ(Env(pod, "SQUEEZE_NODE_RANK"),
            "from:metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(Env(pod, "MASTER_ADDR"), "llm-0.llm");
  EXPECT_EQ(Env(pod, "SQUEEZE_NNODES"), "2");
  const YAML::Node svc = docs.at("Service/nlp/llm");
  EXPECT_EQ(svc["spec"]["clusterIP"].as<std::string>(), "None");
  EXPECT_EQ(svc["spec"]["selector"]["batch.kubernetes.io/job-name"].as<std::string>(), "llm");
}

TEST(KueueJobTest, TopologyAnnotationOnlyWhereAJobCanSpanNodes) {
  auto text = Export({Job("name: big\ncommand: [x]\ngpus: 16\n"),
                      Job("name: small\ncommand: [x]\ngpus: 4\n"),
                      Job("name: free\ncommand: [x]\ngpus: 16\ntopology: unconstrained\n")},
                     ExportTarget::kKueue);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  const auto annotations = [&](const std::string& key) {
    const YAML::Node meta = docs.at(key)["spec"]["template"]["metadata"];
    return meta ? meta["annotations"] : YAML::Node();
  };
  EXPECT_EQ(annotations("Job/default/big")["kueue.x-k8s.io/podset-preferred-topology"]
                .as<std::string>(),
            "squeeze.dev/block");
  EXPECT_FALSE(annotations("Job/default/small").IsDefined() &&
               !annotations("Job/default/small").IsNull());
  EXPECT_EQ(docs.at("Job/default/small")["spec"]["parallelism"].as<int>(), 1);
  EXPECT_FALSE(docs.at("Job/default/small")["spec"]["completionMode"]);
  EXPECT_EQ(annotations("Job/default/free")["kueue.x-k8s.io/podset-unconstrained-topology"]
                .as<std::string>(),
            "true");
  EXPECT_EQ(docs.count("Service/default/small"), 0u);
}

TEST(KueueJobTest, ElasticJobAdmittedPartiallyAndWidthSplitEvenly) {
  auto text = Export({Job("name: el\ncommand: [x]\ngpus: 8-32\nstep: 8\n"),
                      Job("name: twelve\ncommand: [x]\ngpus: 12\n")},
                     ExportTarget::kKueue);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  const YAML::Node el = docs.at("Job/default/el");
  EXPECT_EQ(el["spec"]["parallelism"].as<int>(), 4);
  EXPECT_EQ(el["metadata"]["annotations"]["kueue.x-k8s.io/job-min-parallelism"].as<std::string>(),
            "1");
  EXPECT_EQ(el["metadata"]["annotations"]["kueue.x-k8s.io/job-completions-equal-parallelism"]
                .as<std::string>(),
            "true");
  const YAML::Node twelve = docs.at("Job/default/twelve");
  EXPECT_EQ(twelve["spec"]["parallelism"].as<int>(), 2);
  EXPECT_EQ(twelve["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
                  ["nvidia.com/gpu"].as<int>(),
            6);
}

TEST(JobPodsTest, CardsSpotAndEnvironmentFollowTheJob) {
  auto text = Export(
      {Job("name: mem\ncommand: [x]\ngpu_memory: 80GiB\ngpu_models: [H100, A100]\n"
           "preemptible: true\nenv: {MASTER_PORT: \"1234\"}\nworkdir: /work/a\n"),
       Job("name: firm\ncommand: [x]\npool: a100-owned\n")},
      ExportTarget::kKueue);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  const YAML::Node mem = docs.at("Job/default/mem")["spec"]["template"]["spec"];
  const YAML::Node terms =
      mem["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
         ["nodeSelectorTerms"][0]["matchExpressions"];
  EXPECT_EQ(terms[0]["key"].as<std::string>(), "nvidia.com/gpu.product");
  EXPECT_EQ(terms[0]["values"].size(), 2u);
  EXPECT_EQ(mem["tolerations"][0]["key"].as<std::string>(), "squeeze.dev/spot");
  EXPECT_EQ(Env(mem, "MASTER_PORT"), "1234");  // the job's own variable wins, given once
  int ports = 0;
  for (const YAML::Node& e : mem["containers"][0]["env"]) {
    ports += e["name"].as<std::string>() == "MASTER_PORT";
  }
  EXPECT_EQ(ports, 1);
  EXPECT_EQ(mem["containers"][0]["workingDir"].as<std::string>(), "/work/a");
  const YAML::Node firm = docs.at("Job/default/firm")["spec"]["template"]["spec"];
  EXPECT_FALSE(firm["tolerations"]);
  EXPECT_EQ(firm["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                ["nodeSelectorTerms"][0]["matchExpressions"][0]["key"].as<std::string>(),
            "squeeze.dev/pool");
  EXPECT_FALSE(firm["containers"][0]["workingDir"]);
  EXPECT_EQ(docs.at("Job/default/firm")["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
                .as<std::string>(),
            "pool-a100-owned");
}

TEST(JobPodsTest, CheckpointingJobAskedToSaveBeforeItStops) {
  auto text = Export({Job("name: ck\ncommand: [x]\ncheckpointable: true\ncheckpoint_cost: 90s\n"
                          "time_limit: 2h\n")},
                     ExportTarget::kVolcano);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const YAML::Node pod =
      DocsByName(*text).at("Job/default/ck")["spec"]["tasks"][0]["template"]["spec"];
  EXPECT_EQ(pod["terminationGracePeriodSeconds"].as<int>(), 120);
  EXPECT_EQ(pod["activeDeadlineSeconds"].as<int>(), 7200);
  EXPECT_EQ(pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"][2].as<std::string>(),
            "kill -USR1 1; sleep 90");
}

TEST(VolcanoJobTest, GangTopologyAndQueue) {
  auto text = Export({Job(kRackJob), Job("name: el\ncommand: [x]\ngpus: 8-32\nstep: 8\n")},
                     ExportTarget::kVolcano);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  const YAML::Node llm = docs.at("Job/nlp/llm")["spec"];
  EXPECT_EQ(llm["schedulerName"].as<std::string>(), "volcano");
  EXPECT_EQ(llm["queue"].as<std::string>(), "team-nlp");
  EXPECT_EQ(llm["priorityClassName"].as<std::string>(), "squeeze-high");
  EXPECT_EQ(llm["minAvailable"].as<int>(), 2);
  EXPECT_EQ(llm["networkTopology"]["mode"].as<std::string>(), "hard");
  EXPECT_EQ(llm["networkTopology"]["highestTierAllowed"].as<int>(), 2);
  EXPECT_TRUE(llm["plugins"]["svc"]);
  EXPECT_EQ(llm["tasks"][0]["replicas"].as<int>(), 2);
  EXPECT_EQ(Env(llm["tasks"][0]["template"]["spec"], "SQUEEZE_MASTER_ADDR"), "llm-train-0.llm");
  const YAML::Node el = docs.at("Job/default/el")["spec"];
  EXPECT_EQ(el["minAvailable"].as<int>(), 1);
  EXPECT_EQ(el["tasks"][0]["replicas"].as<int>(), 4);
  EXPECT_EQ(el["queue"].as<std::string>(), "pool-a100-owned");
}

void ExpectRefused(const Result<std::string>& text, const std::string& part) {
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find(part), std::string::npos) << text.status().message();
}

TEST(JobExportTest, RefusesWhatCannotBeExported) {
  ExpectRefused(Export({Job("name: huge\ncommand: [x]\ngpus: 200\n", "huge.yaml")},
                       ExportTarget::kKueue),
                "huge.yaml: job 'huge': asks for 200 GPUs");
  ExpectRefused(Export({Job("name: m\ncommand: [x]\ngpu_memory: 200GiB\n")}, ExportTarget::kKueue),
                "no node of the cluster may run it (at least 204800 MiB per GPU)");
  ExpectRefused(Export({Job("name: r\ncommand: [x]\ntopology: required:rack\n")},
                       ExportTarget::kKueue, TwoTeams()),
                "job 'r'");
  ExpectRefused(Export({Job("name: a\ncommand: [x]\n", "one.yaml"),
                        Job("name: a\ncommand: [y]\n", "two.yaml")},
                       ExportTarget::kVolcano),
                "two.yaml: job 'a' would be the Job default/a, as one.yaml's is");
  ExpectRefused(ExportJobs(TwoTeamsRacks(), TwoTeamsOptions(), {Job("name: a\ncommand: [x]\n")},
                           "bad image", ExportTarget::kKueue),
                "--image 'bad image'");
  ExpectRefused(ExportJobs(TwoTeamsRacks(), TwoTeamsOptions(), {Job("name: a\ncommand: [x]\n")},
                           "", ExportTarget::kKueue),
                "--image");
  ExpectRefused(Export({Job("name: arr\ncommand: [x]\ngpus: 16\narray: 0-9\n")},
                       ExportTarget::kKueue),
                "a job array of tasks of several nodes each (2 pods) is not exported");
}

TEST(JobExportTest, AnArraysTasksAreTheJobsIndices) {
  const JobToExport array = Job("name: arr\ncommand: [x]\narray: 1-10:3%2\nmax_retries: 2\n"
                                "time_limit: 30m\ntopology: required:rack\n");
  auto kueue = Export({array}, ExportTarget::kKueue);
  ASSERT_TRUE(kueue.ok()) << kueue.status().message();
  const YAML::Node job = DocsByName(*kueue).at("Job/default/arr");
  EXPECT_EQ(job["spec"]["completions"].as<int>(), 4);
  EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 2);
  EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(job["spec"]["backoffLimitPerIndex"].as<int>(), 2);
  EXPECT_FALSE(job["spec"]["activeDeadlineSeconds"]);
  EXPECT_EQ(job["metadata"]["annotations"]["kueue.x-k8s.io/job-min-parallelism"].as<std::string>(),
            "1");
  const YAML::Node pod = job["spec"]["template"]["spec"];
  EXPECT_FALSE(job["spec"]["template"]["metadata"]);  // each task on one node
  EXPECT_EQ(pod["activeDeadlineSeconds"].as<int>(), 1800);
  EXPECT_EQ(pod["containers"][0]["command"][0].as<std::string>(), "/bin/sh");
  EXPECT_EQ(pod["containers"][0]["command"][3].as<std::string>(), "x");
  EXPECT_EQ(Env(pod, "SQUEEZE_ARRAY_INDEX"),
            "from:metadata.annotations['batch.kubernetes.io/job-completion-index']");
  auto volcano = Export({array}, ExportTarget::kVolcano);
  ASSERT_TRUE(volcano.ok()) << volcano.status().message();
  const YAML::Node vj = DocsByName(*volcano).at("Job/default/arr")["spec"];
  EXPECT_EQ(vj["minAvailable"].as<int>(), 1);
  EXPECT_EQ(vj["tasks"][0]["replicas"].as<int>(), 4);
  EXPECT_FALSE(vj["networkTopology"]);
  EXPECT_EQ(Env(vj["tasks"][0]["template"]["spec"], "SQUEEZE_ARRAY_INDEX"),
            "from:metadata.annotations['volcano.sh/task-index']");
}

TEST(JobPodsTest, ArrayTaskScriptCountsOrWalksTheIndices) {
  EXPECT_EQ(ArrayTaskScript({1, 4, 7, 10}),
            "SQUEEZE_ARRAY_TASK_ID=$((1 + SQUEEZE_ARRAY_INDEX * 3)); export "
            "SQUEEZE_ARRAY_TASK_ID; exec \"$0\" \"$@\"");
  EXPECT_EQ(ArrayTaskScript({1, 3, 4, 9}),
            "i=$SQUEEZE_ARRAY_INDEX; for t in 1 3 4 9; do if [ \"$i\" -eq 0 ]; then "
            "SQUEEZE_ARRAY_TASK_ID=$t; break; fi; i=$((i - 1)); done; export "
            "SQUEEZE_ARRAY_TASK_ID; exec \"$0\" \"$@\"");
}

}  // namespace
}  // namespace squeeze
