#include "serve/serve_limits.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(ServeLimitsTest, ValidateNamesTheFlagAndTheValue) {
  EXPECT_TRUE(ServeLimits().Validate().ok());
  ServeLimits l;
  l.workers = 0;
  EXPECT_EQ(l.Validate().message(), "--api-workers: 0 is under 1");
  l = ServeLimits();
  l.max_connections_per_peer = 10;
  l.max_connections = 5;
  EXPECT_EQ(l.Validate().message(), "--max-connections-per-peer: 10 is over --max-connections 5");
  l = ServeLimits();
  l.head_timeout_s = 0;
  EXPECT_EQ(l.Validate().message(), "--request-timeout: 0 is under 1");
}

TEST(ServeLimitsTest, TheGlobalCapStaysUnderHalfTheOpenFiles) {
  ServeLimits l;
  l.max_connections = 4096;
  l.max_connections_per_peer = 64;
  EXPECT_EQ(l.WithinOpenFiles(1 << 20).max_connections, 4096);
  const ServeLimits small = l.WithinOpenFiles(100);
  EXPECT_EQ(small.max_connections, 50);
  EXPECT_EQ(small.max_connections_per_peer, 50);
}

TEST(ServeLimitsTest, AWorkerShareIsHalfAtLeastOne) {
  ServeLimits l;
  l.workers = 8;
  EXPECT_EQ(l.max_busy_per_peer(), 4);
  l.workers = 1;
  EXPECT_EQ(l.max_busy_per_peer(), 1);
  l.workers = 3;
  EXPECT_EQ(l.max_busy_per_peer(), 1);
  EXPECT_NE(ServeLimits().Describe().find("64 connections per peer"), std::string::npos);
}

TEST(ConnectionCounterTest, CapsPerPeerAndInAll) {
  ServeLimits l;
  l.max_connections_per_peer = 2;
  l.max_connections = 3;
  ConnectionCounter c(l);
  using Admit = ConnectionCounter::Admit;
  EXPECT_EQ(c.TryOpen("uid 1"), Admit::kOk);
  EXPECT_EQ(c.TryOpen("uid 1"), Admit::kOk);
  EXPECT_EQ(c.TryOpen("uid 1"), Admit::kPeerFull);
  EXPECT_EQ(c.open_of("uid 1"), 2);
  EXPECT_EQ(c.TryOpen("ip 10.0.0.1"), Admit::kOk);
  EXPECT_EQ(c.TryOpen("uid 2"), Admit::kServerFull);
  c.Close("uid 1");
  EXPECT_EQ(c.open(), 2);
  EXPECT_EQ(c.TryOpen("uid 2"), Admit::kOk);
  c.Close("uid 9");  // never counted: nothing changes
  EXPECT_EQ(c.open(), 3);
  EXPECT_NE(c.RefusalText(Admit::kPeerFull).find("at most 2"), std::string::npos);
  EXPECT_NE(c.RefusalText(Admit::kPeerFull).find("--max-connections-per-peer"), std::string::npos);
  EXPECT_NE(c.RefusalText(Admit::kServerFull).find("3"), std::string::npos);
}

TEST(ConnectionCounterTest, ARefusalIsLoggedOnceAMinutePerPeer) {
  ConnectionCounter c{ServeLimits()};
  EXPECT_TRUE(c.ShouldLog("uid 1", 1000));
  EXPECT_FALSE(c.ShouldLog("uid 1", 1001));
  EXPECT_FALSE(c.ShouldLog("uid 1", 1059));
  EXPECT_TRUE(c.ShouldLog("uid 2", 1001));
  EXPECT_TRUE(c.ShouldLog("uid 1", 1060));
}

}  // namespace
}  // namespace squeeze
