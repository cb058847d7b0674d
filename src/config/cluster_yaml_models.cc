// The root's `gpu_models` table of a cluster file: each GPU model's memory and relative speed
// (heterogeneous GPUs, core/hardware.h). A node of a listed model whose own gpu_memory_mib is
// not given gets the model's.
//
//   gpu_models:
//     V100: {memory_mib: 16384, speed: 1}
//     K80: {memory_mib: 12288, speed: 0.24}
#include "config/cluster_yaml_reader.h"
#include "config/text_util.h"

namespace squeeze::cluster_yaml {
namespace {

constexpr std::string_view kModelKeys[] = {"memory_mib", "speed"};

}  // namespace

Status ClusterYamlReader::ReadGpuModels(const Fields& f, ClusterSpec& spec) const {
  const auto it = f.find("gpu_models");
  if (it == f.end()) return Status::Ok();
  const std::string where = "gpu_models";
  if (!it->second.value.IsMap()) {
    return Error(it->second.At(), where,
                 "expected a map of model: {memory_mib, speed}, got " + TypeName(it->second.value));
  }
  for (const auto& entry : it->second.value) {
    if (!entry.first.IsScalar() || Trim(entry.first.Scalar()).empty()) {
      return Error(entry.first, where, "a model name must be a non-empty plain name");
    }
    const std::string model = entry.first.Scalar();
    const std::string path = Child(where, model);
    Fields m;
    if (Status s = ReadFields(entry.second, path, kModelKeys, m); !s.ok()) return s;
    GpuModelSpec spec_of;
    for (Status s : {ReadInt(m, "memory_mib", path, 0, INT64_MAX, spec_of.memory_mib),
                     ReadDouble(m, "speed", path, spec_of.speed)}) {
      if (!s.ok()) return s;
    }
    if (!(spec_of.speed > 0 && spec_of.speed <= 1000)) {
      return Error(m.count("speed") ? m.find("speed")->second.At() : entry.second,
                   Child(path, "speed"),
                   "value '" + std::to_string(spec_of.speed) + "' is not in (0, 1000]");
    }
    if (!spec.gpu_models.emplace(model, spec_of).second) {
      return Error(entry.first, where, "model '" + model + "' is given twice");
    }
  }
  for (NodeSpec& node : spec.nodes) {
    const auto m = spec.gpu_models.find(node.gpu_model);
    if (m != spec.gpu_models.end() && node.gpu_memory_mib == 0) node.gpu_memory_mib = m->second.memory_mib;
  }
  return Status::Ok();
}

}  // namespace squeeze::cluster_yaml
