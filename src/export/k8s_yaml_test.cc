#include "export/k8s_yaml.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace squeeze {
namespace {

TEST(K8sYamlTest, QuotesWhatAReaderWouldTakeForAnotherType) {
  EXPECT_EQ(YamlScalar("owned-a100"), "owned-a100");
  EXPECT_EQ(YamlScalar("nvidia.com/gpu"), "nvidia.com/gpu");
  for (const char* s : {"true", "No", "on", "null", "6214e9", "3090", "1.5", "36Gi", "", "a b",
                        "x: y", "-dash", "#c", "*a"}) {
    EXPECT_EQ(YamlScalar(s).front(), '"') << s;
  }
  EXPECT_EQ(YamlScalar("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
}

TEST(K8sYamlTest, EmitsMapsListsAndBlocksKubectlStyle) {
  YamlDocument doc;
  doc.comments = {"From squeeze: a test."};
  doc.body.Set("kind", YamlValue::String("Thing"));
  doc.body.Set("spec", YamlValue::Map()
                           .Set("value", YamlValue::Int(3000))
                           .Set("on", YamlValue::Bool(true))
                           .Set("empty", YamlValue::Map())
                           .Set("none", YamlValue::List())
                           .Set("items", YamlValue::List()
                                             .Add(YamlValue::Map()
                                                      .Set("name", YamlValue::String("a"))
                                                      .Set("count", YamlValue::Int(1)))
                                             .Add(YamlValue::String("6214e9"))));
  doc.body.Set("conf", YamlValue::Block("actions: \"a, b\"\ntiers:\n- x\n"));
  EXPECT_EQ(EmitYaml({"header"}, {doc}),
            "# header\n"
            "---\n"
            "# From squeeze: a test.\n"
            "kind: Thing\n"
            "spec:\n"
            "  value: 3000\n"
            "  \"on\": true\n"
            "  empty: {}\n"
            "  none: []\n"
            "  items:\n"
            "  - name: a\n"
            "    count: 1\n"
            "  - \"6214e9\"\n"
            "conf: |\n"
            "  actions: \"a, b\"\n"
            "  tiers:\n"
            "  - x\n");
}

TEST(K8sYamlTest, ReadsBackAsWritten) {
  YamlDocument doc;
  doc.body.Set("labels", YamlValue::Map().Set("nvidia.com/gpu.product", YamlValue::String("3090")));
  doc.body.Set("quota", YamlValue::List().Add(YamlValue::Map()
                                                  .Set("gpu", YamlValue::Int(8))
                                                  .Set("memory", YamlValue::String("512Gi"))));
  doc.body.Set("text", YamlValue::Block("line one\n  indented\n"));
  const std::vector<YAML::Node> docs = YAML::LoadAll(EmitYaml({}, {doc, doc}));
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[1]["labels"]["nvidia.com/gpu.product"].as<std::string>(), "3090");
  EXPECT_EQ(docs[1]["labels"]["nvidia.com/gpu.product"].Tag(), "!");  // quoted: a string
  EXPECT_EQ(docs[1]["quota"][0]["gpu"].as<int>(), 8);
  EXPECT_EQ(docs[1]["quota"][0]["memory"].as<std::string>(), "512Gi");
  EXPECT_EQ(docs[1]["text"].as<std::string>(), "line one\n  indented\n");
}

TEST(K8sYamlTest, NoTextEndsAComment) {
  YamlDocument doc;
  doc.comments = {"job of x\nkind: Secret", "a\rb", "nel\xc2\x85ls\xe2\x80\xa8ps\xe2\x80\xa9"};
  doc.body.Set("kind", YamlValue::String("Job"));
  const std::string text = EmitYaml({"from c\nkind: Secret"}, {doc});
  EXPECT_EQ(text,
            "# from c\\x0akind: Secret\n---\n# job of x\\x0akind: Secret\n# a\\x0db\n"
            "# nel\\u0085ls\\u2028ps\\u2029\nkind: Job\n");
  const std::vector<YAML::Node> docs = YAML::LoadAll(text);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0]["kind"].as<std::string>(), "Job");
}

TEST(K8sYamlTest, WrapsCommentsAtSpaces) {
  EXPECT_EQ(WrapComment("one two three four", 9, "- ", "  "),
            (std::vector<std::string>{"- one two", "  three", "  four"}));
  EXPECT_EQ(WrapComment("averyveryverylongword x", 5, "", ""),
            (std::vector<std::string>{"averyveryverylongword", "x"}));
}

}  // namespace
}  // namespace squeeze
