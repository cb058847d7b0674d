// What NVIDIA publishes of each data-centre and workstation GPU's training throughput: its
// dense FP16/BF16 tensor TFLOPS (FP16 for cards without tensor cores), from the product
// datasheets. The driver names a card but reports no throughput; squeeze serve's inventory
// takes a relative speed per model from this table when a machine has cards of several kinds
// and no cluster file says otherwise (docs/serve.md). Pure.
#ifndef SQUEEZE_EXEC_PUBLISHED_GPU_SPEEDS_H_
#define SQUEEZE_EXEC_PUBLISHED_GPU_SPEEDS_H_

#include <optional>
#include <string_view>

namespace squeeze {

// By the short model name the inventory gives ("H100-80GB-HBM3", "A100-SXM4-80GB",
// "V100-SXM2-32GB", "T4"); nullopt for a card not in the table.
std::optional<double> PublishedTflops(std::string_view model);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_PUBLISHED_GPU_SPEEDS_H_
