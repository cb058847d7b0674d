#include "config/job_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "config/job_file.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

constexpr Time kNow = Seconds(1796083200);  // 2026-12-01T00:00:00Z

std::string JsonError(const std::string& text) {
  Result<JobRequest> r = ParseJobJson(text, kNow);
  return r.ok() ? "accepted" : r.status().message();
}

// A JSON string literal holding `raw` (controls as \u escapes, the rest as it is).
std::string JsonString(const std::string& raw) {
  std::string out = "\"";
  for (char c : raw) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || c == '"' || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", b);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Each broken input a plain field must refuse, and the escape its message shows.
struct Broken {
  std::string raw;
  std::string shown;
};
const Broken kBroken[] = {
    {"\x1b[2J", "(\\x1b)"},          {"a\rb", "(\\r)"},        {std::string("a\0b", 3), "(\\x00)"},
    {"a\x7f", "(\\x7f)"},             {"a\xC2\x9b" "1m", "(\\u009b)"}, {"a\nb", "(\\n)"},
    {"a\tb", "(\\t)"},                {"rtl\xE2\x80\xAE", "(\\u202e)"},
};

TEST(JobTextTest, EveryPlainFieldRefusesEveryControlNamingTheFieldAndTheValue) {
  // field -> the job it is put in ("%" is the broken text as a JSON string).
  const std::pair<std::string, std::string> kFields[] = {
      {"name", R"({"command": ["a"], "name": %})"},
      {"team", R"({"command": ["a"], "team": %})"},
      {"output", R"({"command": ["a"], "output": %})"},
      {"error", R"({"command": ["a"], "error": %})"},
      {"workdir", R"({"command": ["a"], "workdir": %})"},
      {"pool", R"({"command": ["a"], "pool": %})"},
      {"gpu_models[1]", R"({"command": ["a"], "gpu_models": ["A100", %]})"},
      {"regions[0]", R"({"command": ["a"], "regions": [%]})"},
      {"dependency", R"({"command": ["a"], "dependency": %})"},
      {"array", R"({"command": ["a"], "array": %})"},
      {"begin", R"({"command": ["a"], "begin": %})"},
      {"urgency", R"({"command": ["a"], "urgency": %})"},
      {"checkpoint_store.url",
       R"({"command": ["a"], "checkpointable": true, "checkpoint_store": {"url": %}})"},
      {"checkpoint_store.credentials",
       R"({"command": ["a"], "checkpointable": true, "checkpoint_store": {"url": "s3://b/p", "credentials": %}})"},
  };
  for (const auto& [field, job] : kFields) {
    for (const Broken& b : kBroken) {
      std::string text = job;
      text.replace(text.find('%'), 1, JsonString("x" + b.raw));
      const std::string message = JsonError(text);
      EXPECT_THAT(message, HasSubstr("JSON request: " + field + ": 'x")) << field;
      EXPECT_THAT(message, HasSubstr("holds a control character " + b.shown)) << field;
    }
  }
}

TEST(JobTextTest, TheMessageSaysWhyAndShowsTheValueEscaped) {
  EXPECT_EQ(JsonError(R"({"command": ["a"], "name": "\u001b[2Jhi"})"),
            "JSON request: name: '\\x1b[2Jhi' holds a control character (\\x1b); names are "
            "printed to other users");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "output": "/tmp/x\r\u001b[1Afake"})"),
            "JSON request: output: '/tmp/x\\r\\x1b[1Afake' holds a control character (\\r); "
            "squeeze prints it in its tables and messages");
  // A YAML file names the line and column.
  Result<JobRequest> yaml = ParseJobYaml("command: [a]\nname: \"x\\e[31m\"\n", "job.yaml", kNow);
  ASSERT_FALSE(yaml.ok());
  EXPECT_THAT(yaml.status().message(),
              HasSubstr("job.yaml:2:7: name: 'x\\x1b[31m' holds a control character (\\x1b)"));
}

TEST(JobTextTest, KeysAreCheckedToo) {
  EXPECT_THAT(JsonError(R"({"command": ["a"], "na\u001bme": "x"})"),
              HasSubstr("field name: 'na\\x1bme' holds a control character"));
  EXPECT_THAT(JsonError(R"({"command": ["a"], "env": {"A\rB": "x"}})"),
              HasSubstr("env key: 'A\\rB' holds a control character"));
}

TEST(JobTextTest, ArgumentsAndEnvValuesKeepTheirControlsButNotNul) {
  Result<JobRequest> r = ParseJobJson(
      R"({"command": ["python3", "-c", "import sys\n\tprint('\u001b[1mhi')\r\n"],
          "env": {"PS1": "\u001b[32m$ ", "LINES": "a\nb"}})",
      kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->command[2], "import sys\n\tprint('\x1b[1mhi')\r\n");
  EXPECT_EQ(r->env.at("PS1"), "\x1b[32m$ ");
  EXPECT_THAT(JsonError(R"({"command": ["a", "b\u0000c"]})"),
              HasSubstr("JSON request: command[1]: 'b\\x00c' holds a NUL byte"));
  EXPECT_THAT(JsonError(R"({"command": ["a"], "env": {"X": "\u0000"}})"),
              HasSubstr("JSON request: env.X: '\\x00' holds a NUL byte"));
}

TEST(JobTextTest, BrokenUtf8InAValueIsRefusedNamingTheField) {
  // yaml-cpp refuses an escaped lone surrogate itself; a tree that holds one anyway (a reader
  // that lets it through) is refused by the check.
  EXPECT_FALSE(ParseJobYaml("command: [a]\nname: \"x\\ud800\"\n", "job.yaml", kNow).ok());
  Status direct = CheckJobText(
      JobNode{JobNode::Kind::kMap, "", {},
              {JobEntry{"output", "", JobNode{JobNode::Kind::kScalar, "/tmp/\xC0\xAF", {}, {}, ""}}},
              ""},
      "test");
  EXPECT_EQ(direct.message(),
            "test: output: '/tmp/\\xc0\\xaf' is not valid UTF-8 (byte \\xc0 at offset 5); squeeze "
            "prints it in its tables and messages");
}

TEST(JobTextTest, PlainTextPasses) {
  EXPECT_EQ(JsonError(R"({"command": ["a"], "name": "resnet-50", "output": "/data/\u6392\u961f/%j.out",
                         "workdir": "/home/caf\u00e9", "regions": ["eu-west"]})"),
            "accepted");
}

}  // namespace
}  // namespace squeeze
