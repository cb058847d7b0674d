#include "exec/published_gpu_speeds.h"

#include <cctype>
#include <string>

namespace squeeze {
namespace {

struct PublishedCard {
  const char* prefix;  // of the upper-cased short model name; the longest match wins
  double tflops;       // dense FP16/BF16 tensor (FP16 without tensor cores)
};

// NVIDIA datasheets (SXM unless the name says PCIe or NVL).
constexpr PublishedCard kPublishedCards[] = {
    {"B200", 2250}, {"H200", 989},      {"H100-PCIE", 756}, {"H100-NVL", 835}, {"H100", 989},
    {"H800", 989},  {"A100", 312},      {"A800", 312},      {"A30", 165},      {"A10", 125},
    {"L40S", 362},  {"L40", 181},       {"L4", 121},        {"T4", 65},        {"V100-PCIE", 112},
    {"V100S", 130}, {"V100", 125},      {"P100", 21.2},     {"P40", 11.8},     {"K80", 8.7},
    {"RTX-6000-ADA", 364}, {"RTX-A6000", 155}, {"A40", 150}, {"RTX-4090", 165}, {"RTX-3090", 71},
};

}  // namespace

std::optional<double> PublishedTflops(std::string_view model) {
  std::string upper(model);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const PublishedCard* best = nullptr;
  size_t best_length = 0;
  for (const PublishedCard& card : kPublishedCards) {
    const std::string_view prefix(card.prefix);
    if (upper.compare(0, prefix.size(), prefix) != 0 || prefix.size() <= best_length) continue;
    // A whole word: "A10" is not the prefix of "A100".
    if (upper.size() > prefix.size() && std::isalnum(static_cast<unsigned char>(upper[prefix.size()])) &&
        !std::isalpha(static_cast<unsigned char>(prefix.back()))) {
      continue;
    }
    best = &card;
    best_length = prefix.size();
  }
  if (best == nullptr) return std::nullopt;
  return best->tflops;
}

}  // namespace squeeze
