#include "serve/dashboard_login.h"

#include <gtest/gtest.h>

#include <set>

namespace squeeze {
namespace {

const Principal kLoginAlice{"alice", "ml", false};
const Principal kLoginBob{"bob", "ml", false};

// A code opens one session, once, within its minute; the session is its minter's, for 12 h.
TEST(DashboardLoginsTest, ACodeOpensOneSessionOnceWithinItsLife) {
  DashboardLogins logins;
  const Time t0 = 1000 * kSecond;
  Result<std::string> code = logins.MintCode(kLoginAlice, t0);
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(code->size(), 64u);
  EXPECT_FALSE(logins.Redeem("", t0).has_value());
  EXPECT_FALSE(logins.Redeem(std::string(64, '0'), t0).has_value());
  auto session = logins.Redeem(*code, t0 + 59 * kSecond);
  ASSERT_TRUE(session.has_value());
  EXPECT_EQ(session->who.user, "alice");
  EXPECT_NE(session->token, *code);
  EXPECT_FALSE(logins.Redeem(*code, t0 + 59 * kSecond).has_value());  // good once
  EXPECT_EQ(logins.Authenticate(session->token, t0 + kHour)->user, "alice");
  EXPECT_FALSE(logins.Authenticate(session->token, t0 + 59 * kSecond + 12 * kHour).has_value());
  EXPECT_FALSE(logins.Authenticate(*code, t0 + kHour).has_value());  // a code is no session
  EXPECT_FALSE(logins.Authenticate("", t0).has_value());
  // A code not used within its minute opens nothing.
  Result<std::string> late = logins.MintCode(kLoginAlice, t0);
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(logins.Redeem(*late, t0 + DashboardLogins::kCodeLife).has_value());
}

// bob cannot push alice's code or session out by making many of his own: each user's oldest
// go first, and past the overall bound new codes are refused, never someone else's dropped.
TEST(DashboardLoginsTest, OneUsersCodesAndSessionsCannotPushOutAnothers) {
  DashboardLogins logins;
  const Time t0 = 5 * kSecond;
  const std::string alices = *logins.MintCode(kLoginAlice, t0);
  const auto alice_session = logins.Redeem(*logins.MintCode(kLoginAlice, t0), t0);
  ASSERT_TRUE(alice_session.has_value());
  std::set<std::string> bobs_sessions;
  for (int i = 0; i < 500; ++i) {
    Result<std::string> code = logins.MintCode(kLoginBob, t0);
    ASSERT_TRUE(code.ok());
    if (i % 5 == 0) bobs_sessions.insert(logins.Redeem(*code, t0)->token);
  }
  EXPECT_TRUE(logins.Redeem(alices, t0).has_value());
  EXPECT_EQ(logins.Authenticate(alice_session->token, t0)->user, "alice");
  int bob_live = 0;
  for (const std::string& t : bobs_sessions) bob_live += logins.Authenticate(t, t0) ? 1 : 0;
  EXPECT_EQ(bob_live, static_cast<int>(DashboardLogins::kSessionsPerUser));
  // The overall bound: bob's 4 live codes and 15 users x 4 fill it; one more user is refused,
  // not served by pushing out another's.
  for (int u = 0; u < 15; ++u) {
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(logins.MintCode({"u" + std::to_string(u), "t", false}, t0).ok());
    }
  }
  Result<std::string> refused = logins.MintCode({"carol", "t", false}, t0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(logins.MintCode({"carol", "t", false}, t0 + DashboardLogins::kCodeLife).ok());
}

}  // namespace
}  // namespace squeeze
