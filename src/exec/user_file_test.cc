#include "exec/user_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "core/testing/temp_dir.h"
#include "exec/supervisor.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(UserFileTest, TheReadersAnswerIsParsedAndABrokenOneRefused) {
  Result<FileSlice> slice = ParseFileSlice("size 12\nhello");
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(slice->size, 12);
  EXPECT_EQ(slice->text, "hello");
  EXPECT_EQ(ParseFileSlice(FormatFileSlice({3, "a\nb"}))->text, "a\nb");
  EXPECT_EQ(ParseFileSlice("error no file that user 'x' can read at /y\n").status().message(),
            "no file that user 'x' can read at /y");
  for (const char* broken : {"", "size\n", "size x\n", "size 12", "sizes 1\nx"}) {
    EXPECT_THAT(ParseFileSlice(broken).status().message(), HasSubstr("unreadable")) << broken;
  }
}

class ReadAsUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(SupervisorBesideSelf().c_str(), X_OK) != 0) GTEST_SKIP() << "no squeeze-supervisor";
  }
  Result<FileSlice> Read(const std::string& user, const std::string& path, int64_t from = -1,
                         int64_t max = 100) {
    return ReadFileAsUser(SupervisorBesideSelf(), ReadSpec{user, path, from, max}, 5000);
  }
  testing::TempDir dir_;
};

TEST_F(ReadAsUserTest, ReadsAStretchOfAFile) {
  const std::string path = dir_.path() + "/out.txt";
  std::ofstream(path) << "0123456789";
  EXPECT_EQ(Read("", path, -1, 4)->text, "6789");
  EXPECT_EQ(Read("", path, 2, 3)->text, "234");
  EXPECT_EQ(Read("", path, 2, 3)->size, 10);
  mkfifo((dir_.path() + "/fifo").c_str(), 0600);
  EXPECT_EQ(Read("", dir_.path() + "/fifo").status().message(),
            dir_.path() + "/fifo is not a regular file");
}

TEST_F(ReadAsUserTest, AFileTheAccountCannotReachReadsAsOneThatIsNotThere) {
  if (geteuid() != 0 || !AccountNamed("nobody").ok()) GTEST_SKIP() << "needs root and nobody";
  chmod(dir_.path().c_str(), 0700);  // nobody may not search it
  const std::string secret = dir_.path() + "/secret";
  std::ofstream(secret) << "root's";
  const std::string missing = dir_.path() + "/missing";
  EXPECT_EQ(Read("nobody", secret).status().message(),
            "no file that user 'nobody' can read at " + secret);
  EXPECT_EQ(Read("nobody", missing).status().message(),
            "no file that user 'nobody' can read at " + missing);
  EXPECT_EQ(Read("", secret)->text, "root's") << "root itself reads it";
}

}  // namespace
}  // namespace squeeze
