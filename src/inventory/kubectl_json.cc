#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "config/text_util.h"
#include "inventory/inventory_sources.h"

namespace squeeze {
namespace {

using Json = nlohmann::json;
const char kSource[] = "kubectl JSON";
const char kGpu[] = "nvidia.com/gpu";

// A string field of an object ("" when absent); an error when present but not a string.
Result<std::string> StringAt(const Json& obj, const std::string& key, const std::string& path) {
  if (!obj.is_object() || !obj.contains(key)) return std::string();
  const Json& v = obj.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return Status::Error(std::string(kSource) + ": " + path + "[\"" + key + "\"]: value " + v.dump() +
                       " is not a string");
}

Result<std::vector<GpuRecord>> ReadNode(const Json& item, const std::string& path) {
  namespace iv = inventory_value;
  const Json& metadata = item.contains("metadata") ? item.at("metadata") : Json();
  auto name = StringAt(metadata, "name", path + ".metadata");
  if (!name.ok()) return name.status();
  if (name->empty())
    return Status::Error(std::string(kSource) + ": " + path + ".metadata.name is missing");
  const std::string where = std::string(kSource) + ": node " + *name;
  const Json labels = metadata.contains("labels") ? metadata.at("labels") : Json::object();
  const Json status = item.contains("status") ? item.at("status") : Json::object();
  const Json capacity = status.contains("capacity") ? status.at("capacity") : Json::object();
  auto count_text = StringAt(capacity, kGpu, path + ".status.capacity");
  if (!count_text.ok()) return count_text.status();
  if (count_text->empty()) {
    auto label = StringAt(labels, "nvidia.com/gpu.count", path + ".metadata.labels");
    if (!label.ok()) return label.status();
    count_text = *label;
  }
  if (count_text->empty()) return std::vector<GpuRecord>();  // a node without GPUs
  auto count = iv::Count(*count_text, where + ": status.capacity[\"nvidia.com/gpu\"]");
  if (!count.ok()) return count.status();
  auto model = StringAt(labels, "nvidia.com/gpu.product", path + ".metadata.labels");
  if (!model.ok()) return model.status();
  auto memory_text = StringAt(labels, "nvidia.com/gpu.memory", path + ".metadata.labels");
  if (!memory_text.ok()) return memory_text.status();
  int64_t memory = 0;
  if (!memory_text->empty()) {
    auto m = iv::Mib(*memory_text, where + ": label nvidia.com/gpu.memory");
    if (!m.ok()) return m.status();
    memory = m->value_or(0);
  }
  return ExpandNodeGpus(*name, model->empty() ? "gpu" : *model, memory, static_cast<int>(*count),
                        std::nullopt, "kubectl-json");
}

}  // namespace

Result<std::vector<GpuRecord>> ParseKubectlNodesJson(std::string_view text) {
  if (Trim(text).empty()) return Status::Error(std::string(kSource) + ": empty input");
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    const size_t at = std::min<size_t>(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
    return Status::Error(std::string(kSource) + " line " + std::to_string(line) +
                         ": not valid JSON (" + e.what() + ")");
  }
  std::vector<Json> items;
  if (doc.is_object() && doc.value("kind", "") == "Node") {
    items.push_back(doc);
  } else if (doc.is_object() && doc.contains("items") && doc.at("items").is_array()) {
    items = doc.at("items").get<std::vector<Json>>();
  } else {
    return Status::Error(std::string(kSource) +
                         ": no items[] list (is this `kubectl get nodes -o json`?)");
  }
  std::vector<GpuRecord> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_object()) {
      return Status::Error(std::string(kSource) + ": items[" + std::to_string(i) +
                           "] is not an object");
    }
    auto node = ReadNode(items[i], "items[" + std::to_string(i) + "]");
    if (!node.ok()) return node.status();
    out.insert(out.end(), node->begin(), node->end());
  }
  return out;
}

}  // namespace squeeze
