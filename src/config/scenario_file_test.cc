#include "config/scenario_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using SetList = std::vector<std::pair<std::string, std::string>>;

// A folder with the files the scenarios below name: t.csv, a.yaml, b.yaml, load.csv.
std::string Dir() {
  static const std::string dir = [] {
    const std::string d =
        (std::filesystem::path(::testing::TempDir()) / "squeeze_scenario_test").lexically_normal();
    std::filesystem::create_directories(d + "/clusters");
    for (const char* name : {"t.csv", "clusters/a.yaml", "clusters/b.yaml", "load.csv"}) {
      std::ofstream(d + "/" + name) << "x\n";
    }
    return d;
  }();
  return dir;
}

Result<Scenario> Parse(const std::string& text) {
  return ParseScenarioYaml(text, "s.yaml", Dir());
}

std::string ErrorOf(const std::string& text) {
  Result<Scenario> r = Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

constexpr char kFull[] = R"(name: coloc
trace: t.csv
policy: squeeze
seed: 7
assume: {preemptible: true, checkpointable: no, checkpoint_cost: 1m, checkpoint_stall: 5s, data_gb: 2.5, urgent_share: 0.25}
inference_load: load.csv
reclaim_trace: load.csv
set: {squeeze.slice: 30m, min_runtime: 10m}
variants:
  - {name: owned, cluster: clusters/a.yaml}
  - name: other
    cluster: clusters/b.yaml
    policy: [fifo, sjf+borrow]
    seed: 3
    inference_load: none
    reclaim_trace: none
    assume: {checkpoint_cost: 90s, checkpoint_stall: 90s}
    set: {min_runtime: 1h, fifo.job_order: sjf}
)";

TEST(ScenarioFileTest, ReadsEverySetting) {
  Result<Scenario> r = Parse(kFull);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "coloc");
  EXPECT_EQ(r->source, "s.yaml");
  EXPECT_EQ(r->trace, Dir() + "/t.csv");
  const ScenarioSettings& d = r->defaults;
  EXPECT_THAT(*d.policies, ElementsAre("squeeze"));
  EXPECT_EQ(d.seed, 7u);
  EXPECT_EQ(d.assume.preemptible, true);
  EXPECT_EQ(d.assume.checkpointable, false);
  EXPECT_EQ(d.assume.checkpoint_cost, kMinute);
  EXPECT_EQ(d.assume.checkpoint_stall, 5 * kSecond);
  EXPECT_EQ(d.assume.data_gb, 2.5);
  EXPECT_EQ(d.assume.urgent_share, 0.25);
  EXPECT_EQ(d.inference_load, Dir() + "/load.csv");
  EXPECT_EQ(d.reclaim_trace, Dir() + "/load.csv");
  EXPECT_EQ(ResolveVariant(*r, r->variants[1]).reclaim_trace, "");
  EXPECT_EQ(ResolveVariant(*r, r->variants[0]).reclaim_trace, Dir() + "/load.csv");
  EXPECT_EQ(d.set, (SetList{{"squeeze.slice", "30m"}, {"min_runtime", "10m"}}));
  ASSERT_EQ(r->variants.size(), 2u);
  EXPECT_EQ(r->variants[0].name, "owned");
  EXPECT_EQ(r->variants[0].cluster, Dir() + "/clusters/a.yaml");
  EXPECT_EQ(r->variants[1].cluster, Dir() + "/clusters/b.yaml");
}

TEST(ScenarioFileTest, AVariantOverridesTheDefaults) {
  Result<Scenario> r = Parse(kFull);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ScenarioSettings owned = ResolveVariant(*r, r->variants[0]);
  EXPECT_THAT(*owned.policies, ElementsAre("squeeze"));
  EXPECT_EQ(owned.seed, 7u);
  EXPECT_EQ(owned.inference_load, Dir() + "/load.csv");
  const ScenarioSettings other = ResolveVariant(*r, r->variants[1]);
  EXPECT_THAT(*other.policies, ElementsAre("fifo", "sjf+borrow"));
  EXPECT_EQ(other.seed, 3u);
  EXPECT_EQ(other.inference_load, "");  // none
  EXPECT_EQ(other.assume.checkpoint_cost, 90 * kSecond);
  EXPECT_EQ(other.assume.checkpoint_stall, 90 * kSecond);
  EXPECT_EQ(ResolveVariant(*r, r->variants[0]).assume.checkpoint_stall, 5 * kSecond);  // inherited
  EXPECT_EQ(other.assume.checkpointable, false);  // inherited
  EXPECT_EQ(other.set, (SetList{{"squeeze.slice", "30m"}, {"min_runtime", "1h"},
                                {"fifo.job_order", "sjf"}}));
}

TEST(ScenarioFileTest, DefaultsAndPathsRelativeToTheFile) {
  const std::string path = Dir() + "/minimal.yaml";
  std::ofstream(path) << "trace: t.csv\n"
                         "variants: [{name: one, cluster: clusters/../clusters/a.yaml}]\n";
  Result<Scenario> r = LoadScenarioFile(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "minimal");
  EXPECT_EQ(r->variants[0].cluster, Dir() + "/clusters/a.yaml");
  const ScenarioSettings s = ResolveVariant(*r, r->variants[0]);
  EXPECT_FALSE(s.policies.has_value());
  EXPECT_FALSE(s.seed.has_value());
  EXPECT_FALSE(s.inference_load.has_value());
  EXPECT_FALSE(s.assume.checkpoint_cost.has_value());
  EXPECT_FALSE(s.assume.checkpoint_stall.has_value());
}

TEST(ScenarioFileTest, ErrorsNameFileLinePathAndValue) {
  const std::string v = "variants:\n  - {name: a, cluster: clusters/a.yaml}\n";
  const std::pair<std::string, std::string> cases[] = {
      {"", "s.yaml: the file is empty; expected a map with keys 'trace' and 'variants'"},
      {"trace: t.csv\n", "s.yaml:1: missing key 'variants'"},
      {v, "s.yaml:1: missing key 'trace'"},
      {"trace: t.csv\nvariants: []\n",
       "s.yaml:2: variants: expected a non-empty list of variants ({name: ..., cluster: ...}), "
       "got an empty list"},
      {"trace: t.csv\nvariants:\n", "s.yaml:2: variants: expected a non-empty list"},
      {"trace: t.csv\ntrcae: x\n" + v,
       "s.yaml:2: unknown key 'trcae'; known keys: name, trace, policy, seed, assume, "
       "inference_load, reclaim_trace, set, variants"},
      {"trace: t.csv\n" + v + "  - {name: b, cluster: clusters/a.yaml, clustre: x}\n",
       "s.yaml:4: variants[1]: unknown key 'clustre'"},
      {"trace: t.csv\n" + v + "  - {name: a, cluster: clusters/b.yaml}\n",
       "s.yaml:4: variants[1].name: duplicate variant name 'a' (first on line 3)"},
      {"trace: t.csv\n" + v + "  - {name: b}\n", "s.yaml:4: variants[1]: missing key 'cluster'"},
      {"trace: t.csv\n" + v + "  - {name: b, cluster: clusters/c.yaml}\n",
       "s.yaml:4: variants[1].cluster: cannot read 'clusters/c.yaml' (resolved to '" + Dir() +
           "/clusters/c.yaml'): No such file or directory"},
      {"trace: clusters\n" + v, "s.yaml:1: trace: cannot read 'clusters' (resolved to '" +
                                    Dir() + "/clusters'): Is a directory"},
      {"trace: t.csv\ninference_load: nope.tar.gz\n" + v,
       "s.yaml:2: inference_load: cannot read 'nope.tar.gz'"},
      {"trace: t.csv\npolicy: fastest\n" + v, "s.yaml:2: policy: unknown policy 'fastest'"},
      {"trace: t.csv\npolicy: []\n" + v, "s.yaml:2: policy: names no policy"},
      {"trace: t.csv\nseed: -1\n" + v, "s.yaml:2: seed: value '-1' is not an integer >= 0"},
      {"trace: t.csv\nset: {slise: 1m}\n" + v, "s.yaml:2: set.slise: "},
      {"trace: t.csv\nset: {slice: soon}\n" + v, "s.yaml:2: set.slice: "},
      {"trace: t.csv\nset: {fastest.slice: 1m}\n" + v,
       "s.yaml:2: set.fastest.slice: unknown policy 'fastest'"},
      {"trace: t.csv\nset: [slice=1m]\n" + v, "s.yaml:2: set: expected a map of KEY: VALUE"},
      {"trace: t.csv\nassume: {preemptible: maybe}\n" + v,
       "s.yaml:2: assume.preemptible: value 'maybe' is not a boolean (true/false, yes/no, 1/0)"},
      {"trace: t.csv\nassume: {checkpoint_cost: soon}\n" + v,
       "s.yaml:2: assume.checkpoint_cost: value 'soon' is not a duration"},
      {"trace: t.csv\nassume: {checkpoint_stall: -10s}\n" + v,
       "s.yaml:2: assume.checkpoint_stall: value '-10s' is not a duration"},
      {"trace: t.csv\nassume: {data_gb: -2}\n" + v,
       "s.yaml:2: assume.data_gb: value '-2' is not a number >= 0"},
      {"trace: t.csv\nassume: {urgent_share: 1.5}\n" + v,
       "s.yaml:2: assume.urgent_share: value '1.5' is not a share between 0 and 1"},
      {"trace: t.csv\nassume: {data: 2}\n" + v, "s.yaml:2: assume: unknown key 'data'"},
      {"trace: t.csv\ntrace: t.csv\n" + v, "s.yaml:2: key 'trace' is given twice"},
      {"trace: [t.csv\n", "YAML syntax error"},
      {"trace: t.csv\n" + v + "---\ntrace: t.csv\n", "holds more than one YAML document; expected one"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_THAT(ErrorOf(text), HasSubstr(message)) << text;
  }
}

}  // namespace
}  // namespace squeeze
