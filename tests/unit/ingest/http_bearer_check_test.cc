// HttpBearerCheck: HTTP ingest's token check, whose token a SIGHUP replaces
// while the listener thread checks headers.
#include "ingest/http_bearer_check.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rayagg {
namespace {

HttpRequest::header_type HeaderWith(std::optional<std::string> authorization) {
  HttpRequest::header_type header;
  if (authorization) header.set(http::field::authorization, *authorization);
  return header;
}

TEST(HttpBearerCheckTest, AnEmptyTokenChecksNothing) {
  const HttpBearerCheck check("");
  EXPECT_TRUE(check.Allows(HeaderWith(std::nullopt)));
  EXPECT_TRUE(check.Allows(HeaderWith("Bearer anything")));
}

TEST(HttpBearerCheckTest, ANewTokenReplacesTheOldOneAndCanBeRemoved) {
  HttpBearerCheck check("first-token");
  const HttpHeaderCheck as_route_check = check.AsHeaderCheck();
  EXPECT_TRUE(as_route_check(HeaderWith("Bearer first-token")));
  EXPECT_FALSE(as_route_check(HeaderWith("Bearer second-token")));
  EXPECT_FALSE(as_route_check(HeaderWith(std::nullopt)));

  check.SetToken("second-token");
  EXPECT_TRUE(as_route_check(HeaderWith("Bearer second-token")));
  EXPECT_FALSE(as_route_check(HeaderWith("Bearer first-token")));

  check.SetToken("");
  EXPECT_TRUE(as_route_check(HeaderWith(std::nullopt)));
}

}  // namespace
}  // namespace rayagg
