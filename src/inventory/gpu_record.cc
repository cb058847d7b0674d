#include "inventory/gpu_record.h"

#include "config/text_util.h"

namespace squeeze {

std::vector<GpuRecord> ExpandNodeGpus(const std::string& node, const std::string& model,
                                      int64_t memory_mib, int count, std::optional<int> allocated,
                                      const std::string& source) {
  std::vector<GpuRecord> out;
  for (int i = 0; i < count; ++i) {
    GpuRecord r;
    r.node = node;
    r.index = i;
    r.model = model;
    r.memory_mib = memory_mib;
    if (allocated) r.allocated = i < *allocated;
    r.source = source;
    out.push_back(std::move(r));
  }
  return out;
}

namespace inventory_value {
namespace {

std::string Quote(std::string_view s) {
  std::string quoted(1, '\'');
  quoted.append(s);
  quoted += '\'';
  return quoted;
}

// The number before an optional unit ("81559 MiB" -> "81559"); `*unit_out` gets the unit.
std::string_view SplitUnit(std::string_view text, std::string_view* unit_out) {
  text = Trim(text);
  const size_t space = text.find(' ');
  *unit_out = space == std::string_view::npos ? std::string_view() : Trim(text.substr(space));
  if (space == std::string_view::npos && !text.empty() && text.back() == '%') {
    *unit_out = "%";
    return text.substr(0, text.size() - 1);
  }
  return text.substr(0, space);
}

}  // namespace

bool IsUnknown(std::string_view text) {
  text = Trim(text);
  return text == "[N/A]" || text == "[Not Supported]" || text == "N/A" ||
         text == "[Unknown Error]" || text == "Not Supported";
}

Result<std::optional<int64_t>> Mib(std::string_view text, const std::string& field) {
  if (IsUnknown(text)) return std::optional<int64_t>();
  std::string_view unit;
  const std::string_view number = SplitUnit(text, &unit);
  int64_t scale = 1;
  if (unit == "GiB") {
    scale = 1024;
  } else if (!unit.empty() && unit != "MiB") {
    return Status::Error(field + ": value " + Quote(Trim(text)) + " is not in MiB (unit " +
                         Quote(unit) + ")");
  }
  const std::optional<int64_t> v = ParseInt64(number);
  if (!v || *v < 0) {
    return Status::Error(field + ": value " + Quote(Trim(text)) +
                         " is not a size in MiB like '81559 MiB'");
  }
  return std::optional<int64_t>(*v * scale);
}

Result<std::optional<double>> Percent(std::string_view text, const std::string& field) {
  if (IsUnknown(text)) return std::optional<double>();
  std::string_view unit;
  const std::string_view number = SplitUnit(text, &unit);
  if (!unit.empty() && unit != "%") {
    return Status::Error(field + ": value " + Quote(Trim(text)) + " is not a percentage (unit " +
                         Quote(unit) + ")");
  }
  const std::optional<double> v = ParseDouble(number);
  if (!v || *v < 0 || *v > 100) {
    return Status::Error(field + ": value " + Quote(Trim(text)) +
                         " is not a percentage from 0 to 100 like '37 %'");
  }
  return std::optional<double>(*v / 100.0);
}

Result<int64_t> Count(std::string_view text, const std::string& field) {
  const std::optional<int64_t> v = ParseInt64(Trim(text));
  if (!v || *v < 0) {
    return Status::Error(field + ": value " + Quote(Trim(text)) + " is not a whole number >= 0");
  }
  return *v;
}

}  // namespace inventory_value
}  // namespace squeeze
