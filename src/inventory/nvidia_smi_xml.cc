#include <algorithm>
#include <pugixml.hpp>
#include <string>

#include "config/text_util.h"
#include "inventory/inventory_sources.h"

namespace squeeze {
namespace {

const char kSource[] = "nvidia-smi XML";

int LineOf(std::string_view text, ptrdiff_t offset) {
  offset = std::clamp<ptrdiff_t>(offset, 0, static_cast<ptrdiff_t>(text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// The text of the element at `path` under `gpu` ("fb_memory_usage/total"); nullopt if absent.
std::optional<std::string> Child(const pugi::xml_node& gpu, const char* path) {
  pugi::xml_node n = gpu.first_element_by_path(path);
  if (!n) return std::nullopt;
  return std::string(Trim(n.child_value()));
}

Result<GpuRecord> ReadGpu(const pugi::xml_node& gpu, int position, const std::string& node) {
  namespace iv = inventory_value;
  const std::string where =
      std::string(kSource) + ": gpu id=\"" + gpu.attribute("id").value() + "\"";
  GpuRecord r;
  r.node = node;
  r.source = "nvidia-smi-xml";
  r.index = position;
  const std::optional<std::string> name = Child(gpu, "product_name");
  if (!name || name->empty()) return Status::Error(where + ": <product_name> is missing or empty");
  r.model = *name;
  if (auto minor = Child(gpu, "minor_number"); minor && !iv::IsUnknown(*minor)) {
    auto index = iv::Count(*minor, where + ": minor_number");
    if (!index.ok()) return index.status();
    r.index = static_cast<int>(*index);
  }
  const std::optional<std::string> total_text = Child(gpu, "fb_memory_usage/total");
  if (!total_text) return Status::Error(where + ": <fb_memory_usage><total> is missing");
  auto total = iv::Mib(*total_text, where + ": fb_memory_usage/total");
  if (!total.ok()) return total.status();
  r.memory_mib = total->value_or(0);
  if (auto used_text = Child(gpu, "fb_memory_usage/used")) {
    auto used = iv::Mib(*used_text, where + ": fb_memory_usage/used");
    if (!used.ok()) return used.status();
    r.memory_used_mib = *used;
  }
  if (auto util_text = Child(gpu, "utilization/gpu_util")) {
    auto util = iv::Percent(*util_text, where + ": utilization/gpu_util");
    if (!util.ok()) return util.status();
    r.utilization = *util;
  }
  return r;
}

}  // namespace

Result<std::vector<GpuRecord>> ParseNvidiaSmiXml(std::string_view text, std::string_view node) {
  if (Trim(text).empty()) return Status::Error(std::string(kSource) + ": empty input");
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  if (!parsed) {
    return Status::Error(std::string(kSource) + " line " +
                         std::to_string(LineOf(text, parsed.offset)) + ": not well-formed XML (" +
                         parsed.description() + ")");
  }
  const pugi::xml_node log = doc.child("nvidia_smi_log");
  if (!log) {
    return Status::Error(std::string(kSource) + ": no <nvidia_smi_log> root element (root is <" +
                         doc.document_element().name() + ">); is this `nvidia-smi -q -x`?");
  }
  std::string host(node);
  if (host.empty()) host = Trim(log.child_value("hostname"));
  std::vector<GpuRecord> out;
  int position = 0;
  for (pugi::xml_node gpu : log.children("gpu")) {
    auto record = ReadGpu(gpu, position++, host);
    if (!record.ok()) return record.status();
    out.push_back(std::move(*record));
  }
  const std::string attached(Trim(log.child_value("attached_gpus")));
  if (!attached.empty()) {
    auto count = inventory_value::Count(attached, std::string(kSource) + ": attached_gpus");
    if (!count.ok()) return count.status();
    if (*count != static_cast<int64_t>(out.size())) {
      return Status::Error(std::string(kSource) + ": attached_gpus is " + attached + " but " +
                           std::to_string(out.size()) + " <gpu> elements were found");
    }
  }
  if (out.empty()) return Status::Error(std::string(kSource) + ": no <gpu> elements");
  return out;
}

}  // namespace squeeze
