#include "config/yaml_documents.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace squeeze {
namespace {

// Notes where each document starts; the events within are of no interest.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  YAML::Mark start = YAML::Mark::null_mark();
};

}  // namespace

YamlDocuments LoadYamlDocuments(const std::string& text) {
  YamlDocuments out;
  out.first = YAML::Load(text);
  std::istringstream in(text);
  YAML::Parser parser(in);
  int last_pos = -1;
  while (out.count < 2) {
    DocumentStarts starts;
    if (!parser.HandleNextDocument(starts)) break;
    // A document that starts where the last one did was not read at all: the endless case.
    if (starts.start.pos <= last_pos) break;
    last_pos = starts.start.pos;
    if (++out.count == 2) out.second = starts.start;
  }
  return out;
}

}  // namespace squeeze
