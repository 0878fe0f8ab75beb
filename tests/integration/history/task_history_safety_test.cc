// ray-task-history safe by default, run as the real binary on an empty
// dir:// store: the Host check on both listeners (421, counted), nosniff and
// JSON errors, the ops listener (health and metrics there, not on the API
// port), the bearer token (401, re-read when the file is replaced; the
// page loads without it), the page and its settings (ui:), the
// refusal to serve off loopback without one, and an index of a newer schema
// answered with 503 instead of a crash loop.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "history/index/index_schema.h"
#include "support/raw_http_client.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

#ifndef RAYAGG_HISTORY_BINARY
#error "RAYAGG_HISTORY_BINARY must name the ray-task-history executable"
#endif

namespace rayagg::test {
namespace {

using nlohmann::json;

// Only a failing test waits this long (start-up under sanitizers).
constexpr std::chrono::milliseconds kTimeout{120'000};

struct Answer {
  int status = 0;
  std::string body;
  http::response<http::string_body> response;
};

Answer Request(int port, const std::string& target, const std::string& headers = "") {
  RawHttpClient client(static_cast<uint16_t>(port), kTimeout);
  client.Send("GET " + target + " HTTP/1.1\r\n" +
              (headers.find("Host:") == std::string::npos ? "Host: 127.0.0.1\r\n" : "") + headers +
              "Connection: close\r\n\r\n");
  Answer answer;
  answer.response = client.Read();
  answer.status = answer.response.result_int();
  answer.body = answer.response.body();
  return answer;
}

class TaskHistorySafetyTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directory(dir_.Path("store")); }
  void TearDown() override {
    if (HasFailure()) std::cerr << "stderr:\n" << ReadWholeFile(dir_.Path("history.err")) << "\n";
  }

  // Starts the binary; true once both port files are there.
  bool Start(const std::string& config_yaml, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--store",         "dir://" + dir_.Path("store"),
                                     "--index-dir",     dir_.Path("index"),
                                     "--http-port",     "0",
                                     "--port-file",     dir_.Path("api.port"),
                                     "--ops-port",      "0",
                                     "--ops-port-file", dir_.Path("ops.port"),
                                     "--config",        dir_.Write("history.yaml", config_yaml)};
    args.insert(args.end(), extra.begin(), extra.end());
    history_ = std::make_unique<Subprocess>(RAYAGG_HISTORY_BINARY, args, dir_.Path("history.out"),
                                            dir_.Path("history.err"));
    const std::optional<int> api = WaitForPortFile(*history_, dir_.Path("api.port"), kTimeout);
    const std::optional<int> ops = WaitForPortFile(*history_, dir_.Path("ops.port"), kTimeout);
    if (!api || !ops) return false;
    api_port_ = *api;
    ops_port_ = *ops;
    return true;
  }
  // SIGTERM, and the exit status.
  std::optional<int> Stop() {
    history_->Signal(SIGTERM);
    return history_->WaitForExit(kTimeout);
  }

  TempDir dir_;
  std::unique_ptr<Subprocess> history_;
  int api_port_ = 0, ops_port_ = 0;
};

TEST_F(TaskHistorySafetyTest, BothListenersCheckHostAndHealthMovedToTheOpsListener) {
  ASSERT_TRUE(Start(""));
  const Answer sessions = Request(api_port_, "/api/history/v1/sessions");
  EXPECT_EQ(sessions.status, 200) << sessions.body;
  EXPECT_EQ(sessions.response["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(Request(api_port_, "/api/history/v1/sessions", "Host: localhost:8090\r\n").status, 200);
  EXPECT_EQ(Request(api_port_, "/api/history/v1/sessions", "Host: [::1]\r\n").status, 200);

  // DNS rebinding: a page's own name pointing at 127.0.0.1.
  const Answer rebound =
      Request(api_port_, "/api/history/v1/sessions", "Host: rebind.attacker.example\r\n");
  EXPECT_EQ(rebound.status, 421);
  EXPECT_EQ(rebound.response["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(rebound.response[http::field::content_type], "application/json");
  const json refused = json::parse(rebound.body, nullptr, false);
  EXPECT_EQ(refused["result"], false);
  EXPECT_EQ(rebound.body.find("attacker"), std::string::npos);
  EXPECT_EQ(Request(ops_port_, "/metrics", "Host: rebind.attacker.example\r\n").status, 421);

  // Health and metrics: on the ops listener only.
  for (const char* path : {"/healthz", "/readyz", "/metrics"}) {
    const Answer on_api = Request(api_port_, path);
    EXPECT_EQ(on_api.status, 404) << path;
    EXPECT_EQ(json::parse(on_api.body, nullptr, false)["msg"], "not found") << on_api.body;
    const Answer on_ops = Request(ops_port_, path);
    EXPECT_EQ(on_ops.status, 200) << path;
    EXPECT_EQ(on_ops.response["X-Content-Type-Options"], "nosniff");
  }
  EXPECT_EQ(Request(ops_port_, "/api/history/v1/sessions").status, 404);  // no task data
  const std::string metrics = Request(ops_port_, "/metrics").body;
  EXPECT_NE(metrics.find("\nrayhist_ready 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nrayhist_http_misdirected_total{listener=\"api\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("\nrayhist_http_misdirected_total{listener=\"ops\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("\nrayhist_http_requests_total{listener=\"api\"} 6\n"), std::string::npos)
      << metrics;
  EXPECT_TRUE(ExitedWith(Stop(), 0));
}

TEST_F(TaskHistorySafetyTest, TheTokenIsRequiredAndReReadWhenTheFileIsReplaced) {
  const std::string token_file = dir_.Write("token", "first-token\n");
  ASSERT_TRUE(Start("http: {bearer_token_file: " + token_file + "}\n"));
  const Answer without = Request(api_port_, "/api/history/v1/sessions");
  EXPECT_EQ(without.status, 401);
  EXPECT_EQ(without.response[http::field::www_authenticate], "Bearer");
  EXPECT_EQ(without.response["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(json::parse(without.body, nullptr, false)["result"], false);
  EXPECT_EQ(Request(api_port_, "/api/v0/tasks", "Authorization: Bearer wrong-token\r\n").status,
            401);
  EXPECT_EQ(Request(api_port_, "/api/history/v1/sessions", "Authorization: Bearer first-token\r\n")
                .status,
            200);
  EXPECT_EQ(Request(api_port_, "/nowhere").status, 401);  // unknown paths too: nothing leaks
  // The page loads without it (it asks for the token when the API answers
  // 401); its settings are API, behind the token.
  for (const char* page : {"/", "/session?session=c%2Fs", "/task?session=c%2Fs&task_id=ab"}) {
    const Answer answer = Request(api_port_, page);
    EXPECT_EQ(answer.status, 200) << page;
    EXPECT_EQ(answer.response[http::field::content_type], "text/html; charset=utf-8") << page;
    EXPECT_EQ(answer.response["Content-Security-Policy"],
              "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
              "object-src 'none'")
        << page;
    EXPECT_EQ(answer.response["Referrer-Policy"], "no-referrer") << page;
  }
  EXPECT_EQ(Request(api_port_, "/api/history/v1/ui").status, 401);

  dir_.Replace("token", "second-token\n");  // as a Kubernetes Secret is updated
  EXPECT_EQ(Request(api_port_, "/api/history/v1/sessions", "Authorization: Bearer first-token\r\n")
                .status,
            401);
  EXPECT_EQ(Request(api_port_, "/api/history/v1/sessions", "Authorization: bearer second-token\r\n")
                .status,
            200);
  // The ops listener needs none (probes, Prometheus), and serves no task data.
  EXPECT_EQ(Request(ops_port_, "/healthz").status, 200);
  const std::string metrics = Request(ops_port_, "/metrics").body;
  EXPECT_NE(metrics.find("\nrayhist_http_unauthorized_total{listener=\"api\"} 5\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("\nrayhist_http_unauthorized_total{listener=\"ops\"} 0\n"),
            std::string::npos);
  EXPECT_TRUE(ExitedWith(Stop(), 0));
}

TEST_F(TaskHistorySafetyTest, ThePageAndItsSettingsComeFromTheConfig) {
  ASSERT_TRUE(Start("ui: {grafana_url: 'https://grafana.example/d/ray', show_secrets: true}\n"));
  const Answer page = Request(api_port_, "/jobs");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.response[http::field::cache_control], "no-cache");
  EXPECT_NE(page.body.find("<"), std::string::npos);
  const Answer settings = Request(api_port_, "/api/history/v1/ui");
  ASSERT_EQ(settings.status, 200) << settings.body;
  const json body = json::parse(settings.body, nullptr, false);
  EXPECT_EQ(body["grafana_url"], "https://grafana.example/d/ray");
  EXPECT_EQ(body["show_secrets"], true);
  EXPECT_EQ(body["redact"], "(?i)secret|token|password|key|credential");
  EXPECT_FALSE(body["version"].get<std::string>().empty());
  EXPECT_TRUE(ExitedWith(Stop(), 0));
}

TEST_F(TaskHistorySafetyTest, OffLoopbackItRefusesToStartWithoutATokenUnlessTold) {
  history_ = std::make_unique<Subprocess>(
      RAYAGG_HISTORY_BINARY,
      std::vector<std::string>{"--store", "dir://" + dir_.Path("store"), "--index-dir",
                               dir_.Path("index"), "--http-address", "0.0.0.0", "--http-port", "0"},
      dir_.Path("history.out"), dir_.Path("history.err"));
  EXPECT_TRUE(ExitedWith(history_->WaitForExit(kTimeout), 2));
  EXPECT_NE(ReadWholeFile(dir_.Path("history.err")).find("http.bearer_token_file"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.Path("index")));  // nothing was started

  ASSERT_TRUE(Start("", {"--http-address", "0.0.0.0", "--allow-unauthenticated"}));
  EXPECT_EQ(Request(api_port_, "/api/history/v1/sessions").status, 200);
  EXPECT_TRUE(ExitedWith(Stop(), 0));
}

TEST_F(TaskHistorySafetyTest, ANewerIndexIsAnswered503AndNeverTouched) {
  std::filesystem::create_directory(dir_.Path("index"));
  {
    auto db = history::SqliteDb::Open(history::IndexPath(dir_.Path("index")), false);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Exec("CREATE TABLE future(x); PRAGMA user_version=999;").ok());
  }
  ASSERT_TRUE(Start(""));
  const std::string versions[] = {"999", std::to_string(history::kIndexSchemaVersion)};
  for (const char* path : {"/api/history/v1/sessions", "/api/v0/tasks"}) {
    const Answer answer = Request(api_port_, path);
    EXPECT_EQ(answer.status, 503) << path;
    const json body = json::parse(answer.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << answer.body;
    EXPECT_EQ(body["result"], false);
    for (const std::string& version : versions) {
      EXPECT_NE(body["msg"].get<std::string>().find(version), std::string::npos) << answer.body;
    }
  }
  const Answer ready = Request(ops_port_, "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("999"), std::string::npos) << ready.body;
  EXPECT_EQ(Request(ops_port_, "/healthz").status, 200);
  const std::string metrics = Request(ops_port_, "/metrics").body;
  EXPECT_NE(metrics.find("\nrayhist_ready 0\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nrayhist_polls_total 0\n"), std::string::npos);  // not indexing
  EXPECT_TRUE(ExitedWith(Stop(), 0));

  auto db = history::SqliteDb::Open(history::IndexPath(dir_.Path("index")), true);
  ASSERT_TRUE(db.ok());
  auto version = (*db)->Prepare("PRAGMA user_version");
  ASSERT_TRUE(version.ok());
  ASSERT_TRUE(*version->Step());
  EXPECT_EQ(version->Int(0), 999);
}

}  // namespace
}  // namespace rayagg::test
