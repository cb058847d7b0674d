// For the tests of src/slurm: the recorded Slurm output of tests/data/slurm, and UTC as the
// time zone the text parsers read times in (the recordings were made in UTC).
#ifndef SQUEEZE_SLURM_RECORDINGS_FOR_TEST_H_
#define SQUEEZE_SLURM_RECORDINGS_FOR_TEST_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "config/file_io.h"

namespace squeeze {

inline std::string Recording(const std::string& name) {
  const std::string path = std::string(SQUEEZE_SOURCE_DIR) + "/tests/data/slurm/" + name;
  Result<std::string> text = ReadWholeFile(path);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : std::string();
}

inline void UseUtc() {
  setenv("TZ", "UTC", 1);
  tzset();
}

// Asserts `status` is an error whose message holds every part.
inline void ExpectErrorWith(const Status& status, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(status.ok()) << "expected an error with '" << *parts.begin() << "'";
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' not in: " << status.message();
  }
}

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_RECORDINGS_FOR_TEST_H_
