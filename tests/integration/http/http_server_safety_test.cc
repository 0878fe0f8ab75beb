// HttpServer's answers as a browser-facing listener needs them, over real
// loopback sockets: nosniff on every answer (handlers' and the server's own
// errors), the Host allowlist (421, DNS rebinding), a server-wide bearer
// check, prefix routes, gzip'd answers and JSON error bodies that never echo
// request text.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "http/http_server.h"
#include "support/gunzip.h"
#include "support/io_thread.h"
#include "support/raw_http_client.h"

namespace rayagg {
namespace {

namespace http = rayagg::http;
using RawClient = test::RawHttpClient;

constexpr const char* kNosniff = "nosniff";

std::string Get(std::string_view target, std::string_view headers = "Host: 127.0.0.1\r\n") {
  return std::string("GET ") + std::string(target) + " HTTP/1.1\r\n" + std::string(headers) +
         "\r\n";
}

class HttpServerSafetyTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options) {
    server_ = std::make_unique<HttpServer>(io_, std::move(options));
    server_->AddRoute("/text", {http::verb::get}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "hello\n");
    });
    server_->AddRoute("/big", {http::verb::get}, [](HttpRequest& request) {
      std::string body;
      for (int i = 0; body.size() < 20'000; ++i) body += "{\"row\":" + std::to_string(i) + "},";
      return MakeHttpResponse(request, http::status::ok, body, "application/json");
    });
    server_->AddRoute("/encoded", {http::verb::get}, [](HttpRequest& request) {
      HttpServerResponse response =
          MakeHttpResponse(request, http::status::ok, std::string(5000, 'z'));
      response.set(http::field::content_encoding, "identity");
      return response;
    });
    server_->AddRoute("/post", {http::verb::post}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "posted");
    });
    server_->AddRoute("/exports/fixed", {http::verb::get}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "exact");
    });
    server_->AddPrefixRoute("/exports/", {http::verb::get}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "short " + std::string(request.target()));
    });
    server_->AddPrefixRoute("/exports/csv/", {http::verb::get}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "long " + std::string(request.target()));
    });
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  http::response<http::string_body> Exchange(const std::string& request, bool head = false) {
    RawClient client(server_->port());
    client.Send(request);
    return client.Read(head);
  }

  asio::io_context io_;
  test::IoThread thread_{io_};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerSafetyTest, EveryAnswerCarriesNosniff) {
  Start({.max_body_bytes = 10, .max_header_bytes = 2048, .max_header_fields = 5});
  EXPECT_EQ(Exchange(Get("/text"))["X-Content-Type-Options"], kNosniff);
  const auto not_found = Exchange(Get("/nowhere"));
  EXPECT_EQ(not_found.result_int(), 404);
  EXPECT_EQ(not_found["X-Content-Type-Options"], kNosniff);
  const auto wrong_method = Exchange("DELETE /text HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(wrong_method.result_int(), 405);
  EXPECT_EQ(wrong_method["X-Content-Type-Options"], kNosniff);
  const auto too_large = Exchange("POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
  EXPECT_EQ(too_large.result_int(), 413);
  EXPECT_EQ(too_large["X-Content-Type-Options"], kNosniff);
  const auto header_too_large =
      Exchange(Get("/text", "Host: x\r\nX-Big: " + std::string(3000, 'a') + "\r\n"));
  EXPECT_EQ(header_too_large.result_int(), 431);
  EXPECT_EQ(header_too_large["X-Content-Type-Options"], kNosniff);
  const auto malformed = Exchange("GET /text HTTP/1.1\r\nHost x\r\n\r\n");
  EXPECT_EQ(malformed.result_int(), 400);
  EXPECT_EQ(malformed["X-Content-Type-Options"], kNosniff);
  const auto head = Exchange("HEAD /text HTTP/1.1\r\nHost: x\r\n\r\n", /*head=*/true);
  EXPECT_EQ(head["X-Content-Type-Options"], kNosniff);
}

TEST_F(HttpServerSafetyTest, HostOutsideTheAllowlistIs421AndNotEchoed) {
  Start({.allowed_hosts = {"localhost", "127.0.0.1", "[::1]"}});
  EXPECT_EQ(Exchange(Get("/text", "Host: 127.0.0.1:8090\r\n")).result_int(), 200);
  EXPECT_EQ(Exchange(Get("/text", "Host: LOCALHOST\r\n")).result_int(), 200);
  EXPECT_EQ(Exchange(Get("/text", "Host: [::1]:1234\r\n")).result_int(), 200);

  const auto rebinding = Exchange(Get("/text", "Host: attacker-rebind.example:8090\r\n"));
  EXPECT_EQ(rebinding.result_int(), 421);
  EXPECT_EQ(rebinding["X-Content-Type-Options"], kNosniff);
  EXPECT_NE(rebinding.body().find("misdirected"), std::string::npos);
  EXPECT_EQ(rebinding.body().find("attacker"), std::string::npos);
  EXPECT_FALSE(rebinding.keep_alive());
  // Refused before the body is read, like an unknown path.
  EXPECT_EQ(
      Exchange("POST /post HTTP/1.1\r\nHost: evil\r\nContent-Length: 1000000\r\n\r\n").result_int(),
      421);
  EXPECT_EQ(Exchange(Get("/nowhere", "Host: evil\r\n")).result_int(), 421);
  // HTTP/1.1 requires Host; without an allowlist it is not asked for.
  EXPECT_EQ(Exchange("GET /text HTTP/1.0\r\n\r\n").result_int(), 400);
  EXPECT_EQ(server_->counters().misdirected.load(), 4u);
  EXPECT_EQ(server_->counters().requests.load(), 3u);
}

TEST_F(HttpServerSafetyTest, WithoutAnAllowlistAnyHostAndNoneAreServed) {
  Start({});
  EXPECT_EQ(Exchange(Get("/text", "Host: anything.example\r\n")).result_int(), 200);
  EXPECT_EQ(Exchange("GET /text HTTP/1.0\r\n\r\n").result_int(), 200);
  EXPECT_EQ(server_->counters().misdirected.load(), 0u);
}

TEST_F(HttpServerSafetyTest, ServerWideAuthorizeRefusesEveryPathWith401) {
  Start({.authorize = [](const HttpRequest::header_type& header) {
    return header[http::field::authorization] == "Bearer right";
  }});
  for (const char* path : {"/text", "/nowhere"}) {
    const auto refused = Exchange(Get(path, "Host: x\r\n"));
    EXPECT_EQ(refused.result_int(), 401) << path;
    EXPECT_EQ(refused[http::field::www_authenticate], "Bearer");
    EXPECT_EQ(refused["X-Content-Type-Options"], kNosniff);
  }
  EXPECT_EQ(Exchange(Get("/text", "Host: x\r\nAuthorization: Bearer right\r\n")).result_int(), 200);
  EXPECT_EQ(Exchange(Get("/nowhere", "Host: x\r\nAuthorization: Bearer right\r\n")).result_int(),
            404);
  EXPECT_EQ(server_->counters().unauthorized.load(), 2u);
}

TEST_F(HttpServerSafetyTest, ExactRoutesWinThenTheLongestPrefix) {
  Start({});
  EXPECT_EQ(Exchange(Get("/exports/fixed")).body(), "exact");
  EXPECT_EQ(Exchange(Get("/exports/fixed?x=1")).body(), "exact");
  EXPECT_EQ(Exchange(Get("/exports/json/1")).body(), "short /exports/json/1");
  EXPECT_EQ(Exchange(Get("/exports/csv/2?q=a")).body(), "long /exports/csv/2?q=a");
  EXPECT_EQ(Exchange(Get("/exports/")).body(), "short /exports/");
  EXPECT_EQ(Exchange(Get("/exports")).result_int(), 404);
  EXPECT_EQ(
      Exchange("POST /exports/a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").result_int(),
      405);
}

TEST_F(HttpServerSafetyTest, LargeAnswersAreGzippedWhenAsked) {
  Start({.gzip_responses = true});
  const auto plain = Exchange(Get("/big"));
  ASSERT_EQ(plain.result_int(), 200);
  EXPECT_EQ(plain.count(http::field::content_encoding), 0u);
  EXPECT_EQ(plain[http::field::vary], "Accept-Encoding");

  const auto zipped = Exchange(Get("/big", "Host: x\r\nAccept-Encoding: gzip, deflate, br\r\n"));
  ASSERT_EQ(zipped.result_int(), 200);
  EXPECT_EQ(zipped[http::field::content_encoding], "gzip");
  EXPECT_EQ(zipped[http::field::vary], "Accept-Encoding");
  EXPECT_EQ(zipped[http::field::content_type], "application/json");
  EXPECT_LT(zipped.body().size(), plain.body().size() / 2);
  EXPECT_EQ(test::Gunzip(zipped.body()), plain.body());
  // HEAD: the same length as GET would send.
  const auto head =
      Exchange("HEAD /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n", /*head=*/true);
  EXPECT_EQ(head[http::field::content_length], std::to_string(zipped.body().size()));

  // Small answers, refused gzip and answers already encoded stay as they are.
  const auto small = Exchange(Get("/text", "Host: x\r\nAccept-Encoding: gzip\r\n"));
  EXPECT_EQ(small.body(), "hello\n");
  EXPECT_EQ(small.count(http::field::content_encoding), 0u);
  EXPECT_EQ(Exchange(Get("/big", "Host: x\r\nAccept-Encoding: gzip;q=0\r\n")).body(), plain.body());
  const auto encoded = Exchange(Get("/encoded", "Host: x\r\nAccept-Encoding: gzip\r\n"));
  EXPECT_EQ(encoded[http::field::content_encoding], "identity");
  EXPECT_EQ(encoded.body(), std::string(5000, 'z'));
  EXPECT_EQ(server_->counters().gzipped.load(), 2u);
}

TEST_F(HttpServerSafetyTest, GzipIsOffUnlessAskedFor) {
  Start({});
  const auto answer = Exchange(Get("/big", "Host: x\r\nAccept-Encoding: gzip\r\n"));
  EXPECT_EQ(answer.count(http::field::content_encoding), 0u);
  EXPECT_EQ(answer.count(http::field::vary), 0u);
}

TEST_F(HttpServerSafetyTest, JsonErrorsNeverEchoTheRequest) {
  Start({.allowed_hosts = {"127.0.0.1"}, .json_errors = true});
  const auto not_found = Exchange(Get("/%3Cscript%3Ealert(1)%3C/script%3E<b>"));
  EXPECT_EQ(not_found.result_int(), 404);
  EXPECT_EQ(not_found[http::field::content_type], "application/json");
  EXPECT_EQ(not_found.body(), R"({"result":false,"msg":"not found"})");
  const auto wrong_method =
      Exchange("PUT /text HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(wrong_method.body(), R"({"result":false,"msg":"method not allowed"})");
  const auto misdirected = Exchange(Get("/text", "Host: <script>\r\n"));
  EXPECT_EQ(misdirected.result_int(), 421);
  EXPECT_EQ(misdirected[http::field::content_type], "application/json");
  EXPECT_EQ(misdirected.body().find("script"), std::string::npos);
  EXPECT_EQ(misdirected.body().rfind(R"({"result":false,"msg":")", 0), 0u);
  const auto malformed = Exchange("GET /<b> HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n");
  EXPECT_EQ(malformed.body(), R"({"result":false,"msg":"malformed HTTP request"})");
  // Handlers' own answers are theirs.
  EXPECT_EQ(Exchange(Get("/text")).body(), "hello\n");
}

}  // namespace
}  // namespace rayagg
