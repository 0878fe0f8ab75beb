#include "common/url.h"

#include <gtest/gtest.h>

namespace {

using rayagg::ParseUrl;
using rayagg::Url;

Url MustParse(std::string_view text) {
  auto url = ParseUrl(text);
  EXPECT_TRUE(url.ok()) << text << ": " << url.status();
  return url.ok() ? *url : Url{};
}

TEST(ParseUrlTest, HttpWithPortAndNoPathTargetsRoot) {
  const Url url = MustParse("http://127.0.0.1:8080");
  EXPECT_EQ(url.scheme, "http");
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.target, "/");
  EXPECT_EQ(url.host_header, "127.0.0.1:8080");
}

TEST(ParseUrlTest, DefaultPortsAreOmittedFromHostHeader) {
  const Url http = MustParse("http://collector.example.com/events");
  EXPECT_EQ(http.port, 80);
  EXPECT_EQ(http.host, "collector.example.com");
  EXPECT_EQ(http.target, "/events");
  EXPECT_EQ(http.host_header, "collector.example.com");

  const Url https = MustParse("https://collector.example.com");
  EXPECT_EQ(https.scheme, "https");
  EXPECT_EQ(https.port, 443);
  EXPECT_EQ(https.host_header, "collector.example.com");

  const Url explicit_default = MustParse("http://h:80/");
  EXPECT_EQ(explicit_default.host_header, "h");
  EXPECT_EQ(MustParse("https://h:80/").host_header, "h:80");
}

TEST(ParseUrlTest, SchemeIsCaseInsensitive) {
  const Url url = MustParse("HTTP://Host:81/Path");
  EXPECT_EQ(url.scheme, "http");
  EXPECT_EQ(url.host, "Host");
  EXPECT_EQ(url.target, "/Path");
}

TEST(ParseUrlTest, PathAndQueryAreKeptVerbatim) {
  EXPECT_EQ(MustParse("http://h:1/a/b/?x=1&y=%20z").target, "/a/b/?x=1&y=%20z");
  EXPECT_EQ(MustParse("http://h:1?x=1").target, "/?x=1");
  EXPECT_EQ(MustParse("http://h:1/").target, "/");
}

TEST(ParseUrlTest, FragmentIsDropped) {
  EXPECT_EQ(MustParse("http://h/a?q=1#frag").target, "/a?q=1");
  EXPECT_EQ(MustParse("http://h#frag").target, "/");
}

TEST(ParseUrlTest, Ipv6Literal) {
  const Url url = MustParse("http://[::1]:9000/ingest");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, 9000);
  EXPECT_EQ(url.target, "/ingest");
  EXPECT_EQ(url.host_header, "[::1]:9000");

  const Url no_port = MustParse("http://[fe80::1:2]");
  EXPECT_EQ(no_port.host, "fe80::1:2");
  EXPECT_EQ(no_port.port, 80);
  EXPECT_EQ(no_port.host_header, "[fe80::1:2]");
}

TEST(ParseUrlTest, PortBounds) {
  EXPECT_EQ(MustParse("http://h:1").port, 1);
  EXPECT_EQ(MustParse("http://h:65535").port, 65535);
  EXPECT_EQ(MustParse("http://h:00080").port, 80);
}

TEST(ParseUrlTest, RejectsInvalidUrls) {
  for (std::string_view bad : {
           "",
           "127.0.0.1:8080",           // no scheme
           "ftp://h/",                 // other scheme
           "file:///tmp/x",            // other scheme
           "grpc://h:1",               // other scheme
           "http://",                  // no host
           "http:///path",             // no host
           "http://:8080/",            // no host
           "http://[]:80/",            // empty IPv6 literal
           "http://h:",                // empty port
           "http://h:0",               // port 0
           "http://h:65536",           // port out of range
           "http://h:123456",          // port too long
           "http://h:80a",             // non-numeric port
           "http://h:-1",              // non-numeric port
           "http://::1/",              // unbracketed IPv6
           "http://[::1/",             // unterminated literal
           "http://[::1]x/",           // junk after literal
           "http://[host]/",           // brackets around a name
           "http://user:pw@h/",        // user info
           "http://h/a b",             // space in path
           "http://h/a\r\nX-Evil: 1",  // CRLF injection
           "http://ho st/",            // space in host
       }) {
    EXPECT_FALSE(ParseUrl(bad).ok()) << "accepted: " << bad;
  }
}

TEST(ParseUrlTest, ErrorsAreInvalidArgumentAndQuoteTheUrl) {
  const auto url = ParseUrl("ftp://h/");
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(url.status().message().find("ftp://h/"), std::string_view::npos);
}

}  // namespace
