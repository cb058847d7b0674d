// For the tests of src/inventory: the recorded tool output of tests/recordings/inventory.
#ifndef SQUEEZE_INVENTORY_RECORDINGS_FOR_TEST_H_
#define SQUEEZE_INVENTORY_RECORDINGS_FOR_TEST_H_

#include <gtest/gtest.h>

#include <string>

#include "config/file_io.h"
#include "slurm/recordings_for_test.h"

namespace squeeze {

inline std::string InventoryRecording(const std::string& name) {
  const std::string path = std::string(SQUEEZE_SOURCE_DIR) + "/tests/recordings/inventory/" + name;
  Result<std::string> text = ReadWholeFile(path);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : std::string();
}

}  // namespace squeeze

#endif  // SQUEEZE_INVENTORY_RECORDINGS_FOR_TEST_H_
