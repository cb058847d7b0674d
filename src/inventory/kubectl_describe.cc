#include <map>
#include <string>

#include "config/text_util.h"
#include "inventory/inventory_sources.h"

namespace squeeze {
namespace {

const char kSource[] = "kubectl describe";

struct DescribedNode {
  std::string name;
  int name_line = 0;
  std::map<std::string, std::string> labels;
  std::string capacity_gpus;  // "" when the Capacity block has no nvidia.com/gpu
  int capacity_line = 0;
  std::string allocated_gpus;  // the Requests column of the nvidia.com/gpu row
  int allocated_line = 0;
};

std::string At(int line) { return std::string(kSource) + " line " + std::to_string(line); }

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size();) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t begin = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > begin) out.push_back(s.substr(begin, i - begin));
  }
  return out;
}

Status AddLabel(std::string_view text, int line, DescribedNode* node) {
  text = Trim(text);
  if (text.empty() || text == "<none>") return Status::Ok();
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Status::Error(At(line) + ": Labels: '" + std::string(text) + "' is not KEY=VALUE");
  }
  node->labels[std::string(text.substr(0, eq))] = std::string(text.substr(eq + 1));
  return Status::Ok();
}

Result<std::vector<GpuRecord>> ToRecords(const DescribedNode& n) {
  namespace iv = inventory_value;
  std::string count_text = n.capacity_gpus;
  std::string count_field = At(n.capacity_line) + ": node " + n.name + ": Capacity nvidia.com/gpu";
  if (count_text.empty() && n.labels.count("nvidia.com/gpu.count")) {
    count_text = n.labels.at("nvidia.com/gpu.count");
    count_field = At(n.name_line) + ": node " + n.name + ": label nvidia.com/gpu.count";
  }
  if (count_text.empty()) return std::vector<GpuRecord>();
  auto count = iv::Count(count_text, count_field);
  if (!count.ok()) return count.status();
  std::optional<int> allocated;
  if (!n.allocated_gpus.empty()) {
    auto a = iv::Count(n.allocated_gpus, At(n.allocated_line) + ": node " + n.name +
                                             ": Allocated resources nvidia.com/gpu requests");
    if (!a.ok()) return a.status();
    allocated = static_cast<int>(*a);
  }
  int64_t memory = 0;
  if (auto it = n.labels.find("nvidia.com/gpu.memory"); it != n.labels.end()) {
    auto m =
        iv::Mib(it->second, At(n.name_line) + ": node " + n.name + ": label nvidia.com/gpu.memory");
    if (!m.ok()) return m.status();
    memory = m->value_or(0);
  }
  auto model = n.labels.find("nvidia.com/gpu.product");
  return ExpandNodeGpus(n.name, model == n.labels.end() ? "gpu" : model->second, memory,
                        static_cast<int>(*count), allocated, "kubectl-describe");
}

// One line of a block: Labels continuation, a Capacity "key: value" or an Allocated row.
Status ReadBlockLine(const std::string& block, std::string_view line, int line_no,
                     DescribedNode* node) {
  if (block == "Labels") return AddLabel(line, line_no, node);
  const std::vector<std::string_view> words = Words(line);
  if (block == "Capacity" && !words.empty() && words[0] == "nvidia.com/gpu:") {
    if (words.size() != 2) {
      return Status::Error(At(line_no) + ": Capacity nvidia.com/gpu: '" + std::string(Trim(line)) +
                           "' is not 'nvidia.com/gpu:  COUNT'");
    }
    node->capacity_gpus = words[1];
    node->capacity_line = line_no;
  }
  if (block == "Allocated resources" && !words.empty() && words[0] == "nvidia.com/gpu") {
    if (words.size() < 2) {
      return Status::Error(At(line_no) + ": Allocated resources: row '" + std::string(Trim(line)) +
                           "' has no Requests column");
    }
    node->allocated_gpus = words[1];
    node->allocated_line = line_no;
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<GpuRecord>> ParseKubectlDescribeNodes(std::string_view text) {
  if (Trim(text).empty()) return Status::Error(std::string(kSource) + ": empty input");
  std::vector<DescribedNode> nodes;
  std::string block;
  int line_no = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    begin = end + 1;
    ++line_no;
    if (Trim(line).empty()) continue;
    if (line[0] != ' ' && line[0] != '\t') {
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) {
        return Status::Error(At(line_no) + ": '" + std::string(line) + "' is not 'Key: value'");
      }
      block = std::string(line.substr(0, colon));
      const std::string_view value = Trim(line.substr(colon + 1));
      if (block == "Name") {
        if (value.empty()) return Status::Error(At(line_no) + ": Name: is empty");
        DescribedNode node;
        node.name = std::string(value);
        node.name_line = line_no;
        nodes.push_back(std::move(node));
        continue;
      }
      if (nodes.empty()) {
        return Status::Error(At(line_no) + ": " + block +
                             ": comes before any 'Name:' line (is this `kubectl describe nodes`?)");
      }
      if (block == "Labels") {
        Status s = AddLabel(value, line_no, &nodes.back());
        if (!s.ok()) return s;
      }
      continue;
    }
    if (nodes.empty()) continue;
    Status s = ReadBlockLine(block, line, line_no, &nodes.back());
    if (!s.ok()) return s;
  }
  if (nodes.empty()) return Status::Error(std::string(kSource) + ": no 'Name:' line: no nodes");
  std::vector<GpuRecord> out;
  for (const DescribedNode& n : nodes) {
    auto records = ToRecords(n);
    if (!records.ok()) return records.status();
    out.insert(out.end(), records->begin(), records->end());
  }
  return out;
}

}  // namespace squeeze
