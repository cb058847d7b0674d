// libFuzzer target: a Slurm batch script as `squeeze submit FILE.sbatch` reads it: whether it
// is one, its #SBATCH lines (config/sbatch_directives.h), what they make of a job
// (cli/sbatch_options.h) and the command that runs it.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cli/sbatch_options.h"
#include "config/sbatch_directives.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)squeeze::IsBatchScript(text);
  auto directives = squeeze::ReadSbatchDirectives(text, "fuzz.sbatch");
  if (!directives.ok()) return 0;
  static const std::map<std::string, std::string> kEnv = {{"HOME", "/root"}, {"PATH", "/bin"}};
  for (bool ignore : {false, true}) {
    (void)squeeze::ConvertSbatchOptions(*directives, "fuzz.sbatch", ignore, kEnv);
  }
  std::vector<std::string> warnings;
  (void)squeeze::BatchScriptCommand("/tmp/fuzz.sbatch", text, {"arg"}, warnings);
  return 0;
}
