// The page on ray-task-history's API listener, over real loopback HTTP with
// the listener's real options (HistoryListenerOptions, gzip, the bearer
// token through ExceptThePage as the binary composes it): index.html for
// every page route, the assets with their types and cache rules, the
// security headers on every answer (errors too), the page loading without
// the token while every /api/ route (and anything else) needs it, and the
// page's settings route. A fixed file table stands in for the bundle; the
// embedded bundle itself is checked at the end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "history/api/api_server.h"
#include "history/ui/page_server.h"
#include "history/ui/ui_files.h"
#include "http/bearer_token_file.h"
#include "support/gunzip.h"
#include "support/io_thread.h"
#include "support/raw_http_client.h"
#include "support/temp_dir.h"

namespace rayagg::history {
namespace {

using nlohmann::json;
using Response = http::response<http::string_body>;

constexpr std::string_view kToken = "page-test-token";

const std::string kIndex =
    "<!doctype html><link rel=stylesheet href=\"/assets/app.css?v=c55\">"
    "<script type=module src=\"/assets/app.js?v=a11\"></script>";
// Larger than the server's gzip threshold, and compressible.
const std::string kScript = [] {
  std::string script;
  for (int i = 0; i < 400; ++i)
    script += "console.log('the page, line " + std::to_string(i) + "');\n";
  return script;
}();
const std::string kStyle = "body { margin: 0 }\n";
const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(2000, 'p');

// A field of an answer ("" when absent).
std::string Field(const Response& response, std::string_view name) {
  const auto value = response[beast::string_view(name.data(), name.size())];
  return std::string(value.data(), value.size());
}

const unsigned char* Bytes(const std::string& text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

const EmbeddedUiFile kFiles[] = {
    {"index.html", Bytes(kIndex), kIndex.size()},
    {"assets/app.js", Bytes(kScript), kScript.size()},
    {"assets/app.css", Bytes(kStyle), kStyle.size()},
    {"assets/logo.png", Bytes(kPng), kPng.size()},
};

class PageTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(UiOptions{}); }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  void Start(UiOptions ui) {
    if (server_) server_->Stop();
    io_thread_.reset();
    io_.restart();
    test::WriteWholeFile(dir_.path() / "token", std::string(kToken) + "\n");
    token_ = std::make_unique<BearerTokenFile>("http.bearer_token_file",
                                               (dir_.path() / "token").string());
    ASSERT_TRUE(token_->Check().ok());
    readers_ = std::make_unique<ReaderPool>(dir_.path().string(), 1, 1 << 20);
    api_ = std::make_unique<HistoryApi>(
        *readers_, metrics_,
        ApiOptions{.limits = {}, .index_dir = dir_.path().string(), .ui = ui, .version = "9.8.7"},
        [] { return true; }, [] { return int64_t{0}; });
    HttpServerOptions options = HistoryListenerOptions("127.0.0.1", 0, {"localhost"});
    options.gzip_responses = true;
    options.authorize = ExceptThePage([this](const HttpRequest::header_type& header) {
      const auto authorization = header.find(http::field::authorization);
      if (authorization == header.end()) return token_->Allows(std::nullopt);
      return token_->Allows(
          std::string_view(authorization->value().data(), authorization->value().size()));
    });
    server_ = std::make_unique<HttpServer>(io_, options);
    api_->AddRoutes(*server_);
    page_.AddRoutes(*server_);
    absl::StatusOr<uint16_t> port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    io_thread_ = std::make_unique<test::IoThread>(io_);
  }

  Response Request(std::string_view method, std::string_view target, std::string extra = "",
                   std::string_view host = "localhost") {
    test::RawHttpClient client(port_);
    client.Send(std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: " +
                std::string(host) + "\r\nConnection: close\r\n" + extra + "\r\n");
    return client.Read(method == "HEAD");
  }
  Response Get(std::string_view target, std::string extra = "") {
    return Request("GET", target, std::move(extra));
  }
  static std::string Bearer() { return "Authorization: Bearer " + std::string(kToken) + "\r\n"; }

  static void ExpectSecurityHeaders(const Response& response, std::string_view what) {
    EXPECT_EQ(Field(response, "Content-Security-Policy"),
              "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
              "form-action 'self'; object-src 'none'")
        << what;
    EXPECT_EQ(Field(response, "X-Content-Type-Options"), "nosniff") << what;
    EXPECT_EQ(Field(response, "Referrer-Policy"), "no-referrer") << what;
  }

  test::TempDir dir_;
  std::unique_ptr<BearerTokenFile> token_;
  HistoryMetrics metrics_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<HistoryApi> api_;
  const PageServer page_{kFiles};
  asio::io_context io_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<test::IoThread> io_thread_;
  uint16_t port_ = 0;
};

TEST_F(PageTest, EveryPageRouteAnswersIndexHtmlWithoutCaching) {
  for (std::string_view route : kPageRoutes) {
    for (std::string target : {std::string(route), std::string(route) + "?session=c%2Fs&state=X"}) {
      const Response response = Get(target);
      ASSERT_EQ(response.result_int(), 200) << target << ": " << response.body();
      EXPECT_EQ(response.body(), kIndex) << target;
      EXPECT_EQ(Field(response, "Content-Type"), "text/html; charset=utf-8") << target;
      EXPECT_EQ(Field(response, "Cache-Control"), "no-cache") << target;
      ExpectSecurityHeaders(response, target);
    }
  }
  const Response head = Request("HEAD", "/session?session=a");
  EXPECT_EQ(head.result_int(), 200);
  EXPECT_EQ(Field(head, "Content-Length"), std::to_string(kIndex.size()));
  EXPECT_TRUE(head.body().empty());
  // Not a page route: refused like any unknown path (here for the token).
  EXPECT_EQ(Get("/sessions").result_int(), 401);
  EXPECT_EQ(Get("/session/x", Bearer()).result_int(), 404);
}

TEST_F(PageTest, AssetsHaveTheirTypesAndAreKeptLongOnlyWhenVersioned) {
  struct Case {
    std::string path;
    const std::string* bytes;
    std::string_view type;
  };
  for (const Case& c : {Case{"/assets/app.js", &kScript, "text/javascript; charset=utf-8"},
                        Case{"/assets/app.css", &kStyle, "text/css; charset=utf-8"},
                        Case{"/assets/logo.png", &kPng, "image/png"}}) {
    const Response versioned = Get(c.path + "?v=0123abcd");
    ASSERT_EQ(versioned.result_int(), 200) << c.path;
    EXPECT_EQ(versioned.body(), *c.bytes) << c.path;
    EXPECT_EQ(Field(versioned, "Content-Type"), c.type) << c.path;
    EXPECT_EQ(Field(versioned, "Cache-Control"), "public, max-age=31536000, immutable") << c.path;
    ExpectSecurityHeaders(versioned, c.path);
    for (std::string plain : {c.path, c.path + "?x=1", c.path + "?v="}) {
      EXPECT_EQ(Field(Get(plain), "Cache-Control"), "no-cache") << plain;
    }
  }
  for (std::string_view missing : {"/assets/nope.js", "/assets/", "/assets/../index.html",
                                   "/assets/app.js/", "/assets/%61pp.js", "/assets/APP.JS"}) {
    const Response response = Get(missing);
    EXPECT_EQ(response.result_int(), 404) << missing;
    EXPECT_EQ(Field(response, "Cache-Control"), "no-cache") << missing;
    ExpectSecurityHeaders(response, missing);
  }
  EXPECT_EQ(Request("POST", "/assets/app.js", "Content-Length: 0\r\n").result_int(), 405);
  // No icon in this bundle: an empty answer rather than an error.
  EXPECT_EQ(Get("/favicon.ico").result_int(), 204);
}

TEST_F(PageTest, FilesAreSentGzippedToClientsThatAcceptIt) {
  const Response zipped = Get("/assets/app.js?v=1", "Accept-Encoding: gzip, br\r\n");
  ASSERT_EQ(zipped.result_int(), 200);
  EXPECT_EQ(Field(zipped, "Content-Encoding"), "gzip");
  EXPECT_EQ(Field(zipped, "Vary"), "Accept-Encoding");
  EXPECT_LT(zipped.body().size(), kScript.size() / 4);
  EXPECT_EQ(test::Gunzip(zipped.body()), kScript);

  const Response plain = Get("/assets/app.js?v=1", "Accept-Encoding: identity\r\n");
  EXPECT_EQ(Field(plain, "Content-Encoding"), "");
  EXPECT_EQ(Field(plain, "Vary"), "Accept-Encoding");
  EXPECT_EQ(plain.body(), kScript);
  // PNG is compressed already.
  const Response png = Get("/assets/logo.png", "Accept-Encoding: gzip\r\n");
  EXPECT_EQ(Field(png, "Content-Encoding"), "");
  EXPECT_EQ(png.body(), kPng);
}

TEST_F(PageTest, ThePageLoadsWithoutTheTokenAndTheApiDoesNot) {
  for (std::string_view page : {"/", "/task?session=a&task_id=ff", "/assets/app.js?v=1",
                                "/assets/nope.js", "/favicon.ico"}) {
    EXPECT_NE(Get(page).result_int(), 401) << page;
  }
  for (std::string_view guarded :
       {"/api/history/v1/ui", "/api/history/v1/sessions", "/api/history/v1/export", "/api/v0/tasks",
        "/nope", "/index.html", "/assetsx/app.js", "/api/history/v1/ui?/assets/"}) {
    const Response refused = Get(guarded);
    EXPECT_EQ(refused.result_int(), 401) << guarded;
    EXPECT_EQ(Field(refused, "WWW-Authenticate"), "Bearer") << guarded;
    ExpectSecurityHeaders(refused, guarded);
  }
  // A path under /assets/ only ever reaches the page's files.
  const Response dotted = Get("/assets/../api/history/v1/ui");
  EXPECT_EQ(dotted.result_int(), 404);
  EXPECT_EQ(dotted.body().find("show_secrets"), std::string::npos);

  const Response allowed = Get("/api/history/v1/ui", Bearer());
  EXPECT_EQ(allowed.result_int(), 200) << allowed.body();
  ExpectSecurityHeaders(allowed, "api");
  EXPECT_EQ(server_->counters().unauthorized.load(), 8u);
}

TEST_F(PageTest, TheHostCheckAppliesToThePage) {
  for (std::string_view target : {"/", "/assets/app.js?v=1"}) {
    const Response response = Request("GET", target, "", "attacker.example");
    EXPECT_EQ(response.result_int(), 421) << target;
    EXPECT_EQ(response.body().find("<!doctype"), std::string::npos);
    ExpectSecurityHeaders(response, target);
  }
}

TEST_F(PageTest, UiRouteAnswersThePagesSettings) {
  Response response = Get("/api/history/v1/ui", Bearer());
  ASSERT_EQ(response.result_int(), 200);
  EXPECT_EQ(Field(response, "Cache-Control"), "no-store");
  json body = json::parse(response.body());
  EXPECT_EQ(body, json({{"grafana_url", nullptr},
                        {"show_secrets", false},
                        {"redact", "(?i)secret|token|password|key|credential"},
                        {"version", "9.8.7"}}));

  Start(UiOptions{.grafana_url = "https://grafana.example/d/ray?orgId=1",
                  .redact = "^PRIVATE_",
                  .show_secrets = true});
  response = Get("/api/history/v1/ui", Bearer());
  ASSERT_EQ(response.result_int(), 200);
  body = json::parse(response.body());
  EXPECT_EQ(body["grafana_url"], "https://grafana.example/d/ray?orgId=1");
  EXPECT_EQ(body["show_secrets"], true);
  EXPECT_EQ(body["redact"], "^PRIVATE_");

  for (std::string_view bad : {"/api/history/v1/ui?session=x", "/api/history/v1/ui?%zz"}) {
    response = Get(bad, Bearer());
    EXPECT_EQ(response.result_int(), 400) << bad;
    body = json::parse(response.body(), nullptr, false);
    EXPECT_EQ(body["result"], false) << bad;
  }
  EXPECT_NE(Get("/api/history/v1/ui?session=x", Bearer()).body().find("session"),
            std::string::npos);
  EXPECT_EQ(metrics_.query_errors[static_cast<size_t>(ApiRoute::kUi)].load(), 3u);
}

TEST(EmbeddedPage, HasAnIndexHtml) {
  const std::optional<UiFile> index = FindUiFile("/index.html");
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_NE(index->bytes.find("<"), std::string_view::npos);
  EXPECT_EQ(FindUiFile("index.html")->bytes, index->bytes);
  EXPECT_FALSE(FindUiFile("/nope.html").has_value());
  if (!kEmbeddedUiBuilt) {
    // The one-line page of a build without the bundle says how to build it.
    EXPECT_NE(index->bytes.find("npm ci"), std::string_view::npos);
    EXPECT_NE(index->bytes.find("scripts/run"), std::string_view::npos);
  }
  EXPECT_EQ(PageServer().file_count(), EmbeddedUiFiles().size());
}

TEST(EmbeddedPage, ContentTypesByExtension) {
  EXPECT_EQ(UiContentType("assets/a.svg"), "image/svg+xml");
  EXPECT_EQ(UiContentType("assets/a.json"), "application/json");
  EXPECT_EQ(UiContentType("favicon.ico"), "image/x-icon");
  EXPECT_EQ(UiContentType("assets/a.js.map"), "application/json");
  EXPECT_EQ(UiContentType("assets/font.woff2"), "application/octet-stream");
  EXPECT_EQ(UiContentType("assets.js/readme"), "application/octet-stream");
}

}  // namespace
}  // namespace rayagg::history
