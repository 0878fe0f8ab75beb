// The Host check behind allowed_hosts: ports, case, IPv6 brackets, trailing
// dots, and what is never a host.
#include "http/host_allowlist.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

TEST(NormalizeHostTest, DropsPortCaseAndTrailingDotAndBracketsIpv6) {
  EXPECT_EQ(NormalizeHost("LocalHost:8090"), "localhost");
  EXPECT_EQ(NormalizeHost("localhost."), "localhost");
  EXPECT_EQ(NormalizeHost("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(NormalizeHost("[::1]:8090"), "[::1]");
  EXPECT_EQ(NormalizeHost("[::1]"), "[::1]");
  EXPECT_EQ(NormalizeHost("::1"), "[::1]");  // a list entry may omit the brackets
  EXPECT_EQ(NormalizeHost("[FE80::1]"), "[fe80::1]");
}

TEST(NormalizeHostTest, RefusesWhatIsNoHost) {
  for (const char* bad : {"", ":8090", "host:", "host:abc", "host:123456", "[::1", "[::1]x",
                          "[::1]:", "[zz::1]", "a b", "evil.com/x", "a@b", "[]"}) {
    EXPECT_EQ(NormalizeHost(bad), std::nullopt) << bad;
  }
}

TEST(HostAllowlistTest, EmptyOrStarAllowsAnyHostAndNone) {
  EXPECT_TRUE(HostAllowlist({}).any());
  EXPECT_TRUE(HostAllowlist({}).Allows(std::nullopt));
  EXPECT_TRUE(HostAllowlist({"localhost", "*"}).Allows("evil.example"));
}

TEST(HostAllowlistTest, AllowsListedHostsOnAnyPort) {
  const HostAllowlist list({"localhost", "127.0.0.1", "[::1]", "history.example.com"});
  EXPECT_FALSE(list.any());
  EXPECT_TRUE(list.Allows("localhost"));
  EXPECT_TRUE(list.Allows("LOCALHOST:8090"));
  EXPECT_TRUE(list.Allows("127.0.0.1:1"));
  EXPECT_TRUE(list.Allows("[::1]:8090"));
  EXPECT_TRUE(list.Allows("History.Example.COM."));
  EXPECT_FALSE(list.Allows(std::nullopt));
  EXPECT_FALSE(list.Allows(""));
  EXPECT_FALSE(list.Allows("evil.example"));
  EXPECT_FALSE(list.Allows("localhost.evil.example"));
  EXPECT_FALSE(list.Allows("127.0.0.2"));
  EXPECT_FALSE(list.Allows("::1"));  // a bare IPv6 literal is no valid Host
  EXPECT_FALSE(list.Allows("localhost:bad"));
}

TEST(IsLoopbackAddressTest, OnlyAddressesOfThisHost) {
  for (const char* loopback :
       {"127.0.0.1", "127.9.8.7", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(IsLoopbackAddress(loopback)) << loopback;
  }
  for (const char* other : {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "::2", "::ffff:10.0.0.1",
                            "localhost", "", "127.0.0.1:80"}) {
    EXPECT_FALSE(IsLoopbackAddress(other)) << other;
  }
}

}  // namespace
}  // namespace rayagg
