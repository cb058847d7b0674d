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

// `token list` shows each token's first characters, user, team and role; `token revoke`
// removes one by its first characters or a user's all, and the registry no longer takes them.
TEST(TokenCommandTest, ListAndRevokeTokens) {
  testing::TempDir dir;
  std::ostringstream a, b, c, err;
  ASSERT_EQ(RunTokenAdd({Me(), "ops", true, dir.path()}, a, err), 0) << err.str();
  ASSERT_EQ(RunTokenAdd({Me(), "ml", false, dir.path()}, b, err), 0) << err.str();
  ASSERT_EQ(RunTokenAdd({Me(), "cv", false, dir.path()}, c, err), 0) << err.str();
  const std::string admin = a.str().substr(0, 64), ml = b.str().substr(0, 64),
                    cv = c.str().substr(0, 64);
  std::ostringstream listed;
  ASSERT_EQ(RunTokenList(dir.path(), listed, err), 0);
  EXPECT_THAT(listed.str(), HasSubstr(admin.substr(0, 8) + "...  " + Me()));
  EXPECT_THAT(listed.str(), HasSubstr("admin"));
  EXPECT_THAT(listed.str(), HasSubstr(ml.substr(0, 8) + "..."));
  EXPECT_EQ(listed.str().find(ml.substr(8, 20)), std::string::npos);  // never the whole token

  std::ostringstream out, why;
  TokenRevokeFlags by_prefix{ml.substr(0, 10), "", dir.path()};
  ASSERT_EQ(RunTokenRevoke(by_prefix, out, why), 0) << why.str();
  EXPECT_THAT(out.str(), HasSubstr("revoked " + ml.substr(0, 8) + "... of user '" + Me() +
                                   "' (team 'ml')"));
  Result<TokenRegistry> reg = TokenRegistry::Load(dir.path());
  ASSERT_TRUE(reg.ok());
  EXPECT_FALSE(reg->Authenticate(ml).has_value());
  EXPECT_TRUE(reg->Authenticate(cv).has_value());

  // Too short a prefix, one that matches nothing, and the last admin are refused.
  std::ostringstream o2, e2;
  EXPECT_EQ(RunTokenRevoke({"abc", "", dir.path()}, o2, e2), 1);
  EXPECT_THAT(e2.str(), HasSubstr("at least the 8 first characters"));
  EXPECT_EQ(RunTokenRevoke({ml.substr(0, 8), "", dir.path()}, o2, e2), 1);
  EXPECT_THAT(e2.str(), HasSubstr("no token matches"));
  EXPECT_EQ(RunTokenRevoke({"", Me(), dir.path()}, o2, e2), 1);
  EXPECT_THAT(e2.str(), HasSubstr("every admin token"));
  EXPECT_TRUE(TokenRegistry::Load(dir.path())->Authenticate(admin).has_value());
}

}  // namespace
}  // namespace squeeze
