#include "serve/web_dir.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

TEST(WebDirTest, IsTheWebFolderBesideTheExecutable) {
  EXPECT_EQ(WebDirBeside("/work/build/squeeze"), "/work/build/web");
  EXPECT_EQ(WebDirBeside("/squeeze"), "/web");
  EXPECT_EQ(WebDirBeside("squeeze"), "web");
}

TEST(WebDirTest, DefaultIsBesideThisProcess) {
  const std::string dir = DefaultWebDir();
  ASSERT_GE(dir.size(), 4u);
  EXPECT_EQ(dir.substr(dir.size() - 4), "/web");
  EXPECT_EQ(dir[0], '/');
}

TEST(WebDirTest, BuiltOnlyWithAnIndex) {
  ::squeeze::testing::TempDir temp("squeeze-web");
  EXPECT_FALSE(WebDirBuilt(temp.path()));
  EXPECT_FALSE(WebDirBuilt(temp.path() + "/nowhere"));
  EXPECT_FALSE(WebDirBuilt(""));
  std::ofstream(temp.path() + "/index.html") << "<!doctype html>";
  EXPECT_TRUE(WebDirBuilt(temp.path()));
}

TEST(WebDirTest, MissingTextSaysWhereAndHow) {
  const std::string text = WebDirMissingText("/x/web");
  EXPECT_NE(text.find("not built"), std::string::npos);
  EXPECT_NE(text.find("/x/web"), std::string::npos);
  EXPECT_NE(text.find("npm run build"), std::string::npos);
  EXPECT_NE(text.find("--web-dir"), std::string::npos);
}

}  // namespace
}  // namespace squeeze
