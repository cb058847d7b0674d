#include "serve/access.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

class AccessTest : public ::testing::Test {
 protected:
  ::squeeze::testing::TempDir temp_{"squeeze-access"};
  const std::string dir_ = temp_.path();
};

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST_F(AccessTest, FirstStartCreatesAPrivateAdminTokenOnce) {
  auto first = EnsureAdminToken(dir_, "root");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->first, dir_ + "/admin.token");
  EXPECT_TRUE(first->second);
  EXPECT_EQ(ModeOf(dir_ + "/admin.token"), 0600u);
  EXPECT_EQ(ModeOf(dir_ + "/tokens"), 0600u);
  std::string token;
  std::ifstream(dir_ + "/admin.token") >> token;
  EXPECT_EQ(token.size(), 64u);
  auto again = EnsureAdminToken(dir_, "root");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->second);
  std::string same;
  std::ifstream(dir_ + "/admin.token") >> same;
  EXPECT_EQ(same, token);
  auto reg = TokenRegistry::Load(dir_);
  ASSERT_TRUE(reg.ok());
  auto who = reg->Authenticate(token);
  ASSERT_TRUE(who.has_value());
  EXPECT_TRUE(who->admin);
  EXPECT_EQ(who->user, "root");
}

TEST_F(AccessTest, UsersAreNotAdminsAndWrongTokensAreNobody) {
  auto alice = AddToken(dir_, "alice", "ml", false);
  auto bob = AddToken(dir_, "bob", "vision", false);
  ASSERT_TRUE(alice.ok() && bob.ok());
  EXPECT_NE(*alice, *bob);
  auto reg = TokenRegistry::Load(dir_);
  ASSERT_TRUE(reg.ok());
  auto a = reg->Authenticate(*alice);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->user, "alice");
  EXPECT_EQ(a->team, "ml");
  EXPECT_FALSE(a->admin);
  std::string wrong = *alice;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_FALSE(reg->Authenticate(wrong).has_value());
  EXPECT_FALSE(reg->Authenticate(alice->substr(0, 63)).has_value());
  EXPECT_FALSE(reg->Authenticate("").has_value());
}

TEST_F(AccessTest, BadNamesAndBrokenTokenFiles) {
  EXPECT_EQ(AddToken(dir_, "al ice", "ml", false).status().message(),
            "user 'al ice': use 1-64 of A-Z a-z 0-9 . _ -");
  EXPECT_EQ(AddToken(dir_, "alice", "", false).status().message(),
            "team '': use 1-64 of A-Z a-z 0-9 . _ -");
  std::ofstream(dir_ + "/tokens") << "# comment\nshort alice ml user\n";
  EXPECT_EQ(TokenRegistry::Load(dir_).status().message(),
            dir_ + "/tokens:2: expected 'TOKEN USER TEAM ROLE' (a token of 32+ characters, ROLE "
                   "admin or user)");
  auto empty = TokenRegistry::Load(dir_ + "/absent");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(BearerTokenTest, OnlyABearerHeader) {
  EXPECT_EQ(BearerToken("Bearer abc").value(), "abc");
  EXPECT_EQ(BearerToken("Bearer abc  ").value(), "abc");
  EXPECT_FALSE(BearerToken("Basic abc").has_value());
  EXPECT_FALSE(BearerToken("Bearer ").has_value());
  EXPECT_FALSE(BearerToken("Bearer a b").has_value());
  EXPECT_FALSE(BearerToken("").has_value());
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

TEST(LiveTokensTest, SeesATokenAddedWhileItRuns) {
  ::squeeze::testing::TempDir dir{"squeeze-live-tokens"};
  auto admin = EnsureAdminToken(dir.path(), "root");
  ASSERT_TRUE(admin.ok());
  auto live = LiveTokens::Load(dir.path());
  ASSERT_TRUE(live.ok()) << live.status().message();
  auto token = AddToken(dir.path(), "carol", "nlp", false);
  ASSERT_TRUE(token.ok());
  // Checked at most once a second: within a few seconds the new token is known.
  std::optional<Principal> who;
  for (int i = 0; i < 40 && !who; ++i) {
    who = (*live)->Authenticate(*token);
    if (!who) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(who.has_value());
  EXPECT_EQ(who->user, "carol");
  EXPECT_EQ(who->team, "nlp");
  EXPECT_FALSE((*live)->Authenticate("not-a-token").has_value());
}

}  // namespace
}  // namespace squeeze
