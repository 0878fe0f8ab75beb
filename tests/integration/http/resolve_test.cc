// ResolveWithDeadline: numeric fast path, real lookups through Asio's
// resolver thread, and the deadline. (The race where getaddrinfo outlives the
// deadline needs a stalling DNS server and is not reproduced here.)
#include "http/resolve.h"

#include <gtest/gtest.h>

#include <chrono>

#include "support/condition_wait.h"
#include "support/run_coroutine.h"

namespace {

using namespace std::chrono_literals;
using rayagg::ResolveResult;
using rayagg::ResolveWithDeadline;
using rayagg::test::RunCoroutine;
namespace asio = rayagg::asio;
using Clock = std::chrono::steady_clock;
// Long past on any machine: steady time's epoch (boot, typically).
constexpr Clock::time_point kPassed{};

class ResolveTest : public ::testing::Test {
 protected:
  ResolveResult Resolve(const std::string& host, uint16_t port,
                        Clock::time_point deadline = rayagg::test::WaitDeadline().at()) {
    return RunCoroutine(io_context_,
                        ResolveWithDeadline(io_context_.get_executor(), host, port, deadline));
  }

  asio::io_context io_context_;
};

TEST_F(ResolveTest, NumericAddressesSkipTheResolver) {
  const ResolveResult v4 = Resolve("127.0.0.1", 8080);
  ASSERT_FALSE(v4.error) << v4.error.message();
  ASSERT_EQ(v4.endpoints.size(), 1u);
  EXPECT_EQ(v4.endpoints[0], asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 8080));

  const ResolveResult v6 = Resolve("::1", 9);
  ASSERT_FALSE(v6.error) << v6.error.message();
  ASSERT_EQ(v6.endpoints.size(), 1u);
  EXPECT_TRUE(v6.endpoints[0].address().is_v6());

  // No lookup even when the deadline has passed: nothing can block.
  EXPECT_FALSE(Resolve("10.1.2.3", 1, kPassed).error);
}

TEST_F(ResolveTest, HostnameIsLookedUp) {
  const ResolveResult result = Resolve("localhost", 80);
  ASSERT_FALSE(result.error) << result.error.message();
  ASSERT_FALSE(result.endpoints.empty());
  for (const auto& endpoint : result.endpoints) {
    EXPECT_TRUE(endpoint.address().is_loopback()) << endpoint;
    EXPECT_EQ(endpoint.port(), 80);
  }
}

TEST_F(ResolveTest, PassedDeadlineTimesOutWithoutALookup) {
  EXPECT_EQ(Resolve("localhost", 80, kPassed).error, asio::error::timed_out);
}

TEST_F(ResolveTest, UnknownHostIsAnError) {
  // RFC 6761 reserves .invalid: it never resolves. Depending on the resolver
  // this is a negative answer or, without DNS, the deadline.
  const ResolveResult result =
      Resolve("no-such-host.invalid", 80, rayagg::test::WaitDeadline(2s).at());
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(result.endpoints.empty());
}

}  // namespace
