#include "cli/token_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/testing/temp_dir.h"
#include "exec/unix_account.h"
#include "serve/access.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

// A token's user is a Unix account: the one running the test is always one.
std::string Me() { return CurrentAccount().value().name; }

TEST(TokenCommandTest, AddedTokenAuthenticatesAsTheUserAndTeam) {
  testing::TempDir dir;
  std::ostringstream out, err;
  ASSERT_EQ(RunTokenAdd({Me(), "ml", false, dir.path()}, out, err), 0) << err.str();
  std::string token = out.str();
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(token.back(), '\n');
  token.pop_back();
  EXPECT_THAT(err.str(), HasSubstr(dir.path() + "/tokens"));

  const Result<TokenRegistry> reg = TokenRegistry::Load(dir.path());
  ASSERT_TRUE(reg.ok()) << reg.status().message();
  const std::optional<Principal> who = reg->Authenticate(token);
  ASSERT_TRUE(who.has_value());
  EXPECT_EQ(who->user, Me());
  EXPECT_EQ(who->team, "ml");
  EXPECT_FALSE(who->admin);
}

TEST(TokenCommandTest, AdminFlagMakesAnAdmin) {
  testing::TempDir dir;
  std::ostringstream out, err;
  ASSERT_EQ(RunTokenAdd({Me(), "ops", true, dir.path()}, out, err), 0) << err.str();
  std::string token = out.str();
  token.pop_back();
  const Result<TokenRegistry> reg = TokenRegistry::Load(dir.path());
  ASSERT_TRUE(reg.ok());
  ASSERT_TRUE(reg->Authenticate(token).has_value());
  EXPECT_TRUE(reg->Authenticate(token)->admin);
}

TEST(TokenCommandTest, BadUserOrDirectoryFailsWithTheReason) {
  testing::TempDir dir;
  std::ostringstream out, err;
  EXPECT_EQ(RunTokenAdd({"al ice", "ml", false, dir.path()}, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("'al ice'"));
  EXPECT_EQ(out.str(), "");

  std::ostringstream out2, err2;
  const std::string missing = dir.path() + "/nope";
  EXPECT_EQ(RunTokenAdd({Me(), "ml", false, missing}, out2, err2), 1);
  EXPECT_THAT(err2.str(), HasSubstr("--data: '" + missing + "' is not a directory"));
  EXPECT_EQ(out2.str(), "");
  EXPECT_TRUE(TokenRegistry::Load(dir.path())->empty());
}

TEST(TokenCommandTest, AUserWithNoUnixAccountIsRefused) {
  testing::TempDir dir;
  std::ostringstream out, err;
  EXPECT_EQ(RunTokenAdd({"no-such-user-x9", "ml", false, dir.path()}, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("USER: no Unix account 'no-such-user-x9' on this machine"));
  EXPECT_EQ(out.str(), "");
  EXPECT_TRUE(TokenRegistry::Load(dir.path())->empty());
}

}  // namespace
}  // namespace squeeze
