#include "http/request.h"

#include <gtest/gtest.h>

#include <string_view>

namespace {

using rayagg::BuildPostRequest;
using rayagg::HttpHeaders;
using rayagg::ParseUrl;
namespace http = rayagg::http;

rayagg::Url TestUrl() { return *ParseUrl("http://collector:9000/v1/events?src=ray"); }

TEST(BuildPostRequestTest, SetsMethodTargetAndDefaultHeaders) {
  auto request = BuildPostRequest(TestUrl(), "[{}]", {});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->method(), http::verb::post);
  EXPECT_EQ(request->target(), "/v1/events?src=ray");
  EXPECT_EQ(request->version(), 11);
  EXPECT_EQ((*request)[http::field::host], "collector:9000");
  EXPECT_EQ((*request)[http::field::content_type], "application/json");
  EXPECT_EQ((*request)[http::field::content_length], "4");
  EXPECT_EQ((*request)[http::field::accept], "*/*");
  EXPECT_EQ(std::string((*request)[http::field::user_agent]), rayagg::kUserAgent);
  EXPECT_EQ(rayagg::kUserAgent.rfind("ray-event-aggregator/", 0), 0u);
  EXPECT_EQ(std::string_view(request->body().data(), request->body().size()), "[{}]");
  EXPECT_TRUE(request->keep_alive());
}

TEST(BuildPostRequestTest, ExtraHeadersOverrideDefaults) {
  auto request = BuildPostRequest(
      TestUrl(), "x", {{"content-type", "application/x-ndjson"}, {"Authorization", "Bearer t"}});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)[http::field::content_type], "application/x-ndjson");
  EXPECT_EQ(request->count(http::field::content_type), 1u);
  EXPECT_EQ((*request)[http::field::authorization], "Bearer t");
}

TEST(BuildPostRequestTest, FramingHeadersAlwaysComeFromTheBody) {
  auto request = BuildPostRequest(TestUrl(), "12345",
                                  {{"Content-Length", "999"}, {"Transfer-Encoding", "chunked"}});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)[http::field::content_length], "5");
  EXPECT_EQ(request->count(http::field::transfer_encoding), 0u);
}

TEST(BuildPostRequestTest, EmptyBodyHasContentLengthZero) {
  auto request = BuildPostRequest(TestUrl(), "", {});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)[http::field::content_length], "0");
}

TEST(BuildPostRequestTest, RejectsHeaderInjection) {
  for (const HttpHeaders& bad : std::vector<HttpHeaders>{
           {{"X-A", "v\r\nX-Evil: 1"}},
           {{"X-A", "v\n"}},
           {{"X-A", std::string("v\0w", 3)}},
           {{"", "v"}},
           {{"Bad Name", "v"}},
           {{"Bad:Name", "v"}},
       }) {
    auto request = BuildPostRequest(TestUrl(), "", bad);
    EXPECT_FALSE(request.ok()) << bad[0].first;
    EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
