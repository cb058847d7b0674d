// A fresh folder under /tmp for one test, removed with everything in it at the end.
#ifndef SQUEEZE_CORE_TESTING_TEMP_DIR_H_
#define SQUEEZE_CORE_TESTING_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace squeeze::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "squeeze-test") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace squeeze::testing

#endif  // SQUEEZE_CORE_TESTING_TEMP_DIR_H_
