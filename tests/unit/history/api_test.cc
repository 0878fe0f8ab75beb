// The query API over a real loopback HttpServer and a real SQLite index built
// by the IndexWriter from a random session: answers checked against the
// fold of the events, cursor pages that add up to the whole list, hostile
// parameters that get correct, empty or 400 answers (never SQL), and Ray's
// State API answers checked against Ray's documented schema
// (python/ray/util/state/common.py TaskState, ListApiResponse, TaskSummaries).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "history/api/api_server.h"
#include "history/api/task_fields.h"
#include "history/fold/reducer.h"
#include "history/index/index_schema.h"
#include "history/index/index_writer.h"
#include "support/io_thread.h"
#include "support/raw_http_client.h"
#include "support/temp_dir.h"
#include "unit/history/random_session.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

std::string Escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.') {
      out.push_back(c);
    } else {
      out += '%';
      out += kHex[static_cast<unsigned char>(c) >> 4];
      out += kHex[static_cast<unsigned char>(c) & 15];
    }
  }
  return out;
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir_.path(), 8 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    IndexWriter writer(*db_);
    // Two sessions of one cluster; the newest is the default.
    for (uint64_t seed : {11, 12}) {
      const Session session = RandomSession(seed);
      FoldedSession folded;
      for (const RayEvent& event : session.events) FoldEvent(event, folded);
      if (seed == 12) expected_ = folded;
      SessionIdentity identity{
          "rayjob", "team-a", "nightly", "cluster-1",
          "session_2026-01-0" + std::to_string(seed - 10) + "_00-00-00_000000_1"};
      absl::StatusOr<int64_t> id = writer.EnsureSession(identity, true);
      ASSERT_TRUE(id.ok());
      BatchInput batch;
      batch.folded = std::move(folded);
      ASSERT_TRUE(writer.WriteBatch(*id, std::move(batch)).ok());
    }
    for (const auto& [id, job] : expected_.jobs) {
      if (job.finished_ns() != kNoTime) finished_jobs_[id] = job.finished_ns();
    }
    for (const auto& [id, node] : expected_.nodes) {
      if (node.dead_ns() != kNoTime) dead_nodes_[id] = node.dead_ns();
    }
    readers_ = std::make_unique<ReaderPool>(dir_.path(), 2, 4 << 20);
    api_ = std::make_unique<HistoryApi>(
        *readers_, metrics_, ApiOptions{.limits = {}, .index_dir = dir_.path()},
        [] { return true; }, [] { return int64_t{0}; });
    server_ = std::make_unique<HttpServer>(io_, HttpServerOptions{});
    api_->AddRoutes(*server_);
    absl::StatusOr<uint16_t> port = server_->Start();
    ASSERT_TRUE(port.ok());
    port_ = *port;
    io_thread_ = std::make_unique<test::IoThread>(io_);
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  std::pair<int, json> Get(const std::string& target) {
    test::RawHttpClient client(port_);
    client.Send("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    auto response = client.Read();
    json body = json::parse(response.body(), nullptr, false);
    return {response.result_int(), body};
  }

  int32_t StateOf(const TaskRecord& task) {
    return ReportedState(task, finished_jobs_, dead_nodes_);
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
  FoldedSession expected_;
  std::unordered_map<std::string, int64_t> finished_jobs_, dead_nodes_;
  HistoryMetrics metrics_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<HistoryApi> api_;
  asio::io_context io_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<test::IoThread> io_thread_;
  uint16_t port_ = 0;
};

TEST_F(ApiTest, SessionsAndCountsMatchTheEvents) {
  auto [status, body] = Get("/api/history/v1/sessions");
  ASSERT_EQ(status, 200) << body;
  ASSERT_EQ(body["sessions"].size(), 2u);
  const json& newest = body["sessions"][0];
  EXPECT_EQ(newest["cluster"], "rayjob/team-a/nightly/cluster-1");
  EXPECT_EQ(newest["session_name"], "session_2026-01-02_00-00-00_000000_1");
  EXPECT_EQ(newest["tasks"]["attempts"], expected_.tasks.size());

  std::map<std::string, int64_t> want;
  for (const auto& [key, task] : expected_.tasks) ++want[TaskStateName(StateOf(task))];
  auto [s2, counts] = Get("/api/history/v1/counts?unit=attempts");
  ASSERT_EQ(s2, 200);
  EXPECT_EQ(counts["total"], expected_.tasks.size());
  for (const auto& [state, count] : want) EXPECT_EQ(counts["by_state"][state], count) << state;

  // One job's counts.
  const std::string job = expected_.jobs.begin()->first;
  int64_t job_total = 0;
  for (const auto& [key, task] : expected_.tasks) job_total += task.job_id() == job ? 1 : 0;
  auto [s3, job_counts] = Get("/api/history/v1/counts?unit=attempts&job_id=" + job);
  ASSERT_EQ(s3, 200);
  EXPECT_EQ(job_counts["total"], job_total);
}

TEST_F(ApiTest, GroupsByFunctionCarryCountsAndDistributions) {
  std::map<std::string, int64_t> want;
  for (const auto& [key, task] : expected_.tasks) {
    ++want[task.definition.has() ? task.definition.value.func_name : ""];
  }
  auto [status, body] = Get("/api/history/v1/groups?by=function&unit=attempts");
  ASSERT_EQ(status, 200) << body;
  ASSERT_EQ(body["groups"].size(), want.size());
  for (const json& group : body["groups"]) {
    EXPECT_EQ(group["total"], want[group["key"]]) << group["key"];
    const json& running = group["durations"]["running"];
    EXPECT_LE(running["p50_ms"].get<double>(), running["p99_ms"].get<double>() + 1e-9);
    EXPECT_LE(running["p99_ms"].get<double>(), running["max_ms"].get<double>() + 1e-9);
    int64_t histogram_total = 0;
    for (const json& bucket : running["histogram"])
      histogram_total += bucket["count"].get<int64_t>();
    EXPECT_EQ(histogram_total, running["count"]);
  }
  for (const char* by : {"error_type", "job", "node"}) {
    auto [s, b] = Get(std::string("/api/history/v1/groups?unit=attempts&by=") + by);
    EXPECT_EQ(s, 200) << by;
    int64_t total = 0;
    for (const json& group : b["groups"]) total += group["total"].get<int64_t>();
    EXPECT_EQ(total, expected_.tasks.size()) << by;
  }
  EXPECT_EQ(Get("/api/history/v1/groups?by=nonsense").first, 400);
}

TEST_F(ApiTest, CursorPagesAddUpToEveryTaskInOrder) {
  for (const TaskSort& sort_column : kTaskSorts) {
    const std::string sort(sort_column.name);
    for (const std::string order : {"asc", "desc"}) {
      std::set<std::pair<std::string, int64_t>> seen;
      std::string cursor;
      json previous;
      for (int page = 0; page < 1000; ++page) {
        std::string target =
            "/api/history/v1/tasks?unit=attempts&limit=7&sort=" + sort + "&order=" + order;
        if (!cursor.empty()) target += "&cursor=" + cursor;
        auto [status, body] = Get(target);
        ASSERT_EQ(status, 200) << body;
        for (const json& task : body["tasks"]) {
          EXPECT_TRUE(seen.emplace(task["task_id"], task["attempt"].get<int64_t>()).second);
          if (sort == "start_time" && !previous.is_null() && !previous["start_time_ms"].is_null() &&
              !task["start_time_ms"].is_null()) {
            if (order == "asc") {
              EXPECT_LE(previous["start_time_ms"].get<int64_t>(),
                        task["start_time_ms"].get<int64_t>());
            } else {
              EXPECT_GE(previous["start_time_ms"].get<int64_t>(),
                        task["start_time_ms"].get<int64_t>());
            }
          }
          previous = task;
        }
        if (body["next_cursor"].is_null()) break;
        cursor = body["next_cursor"];
      }
      EXPECT_EQ(seen.size(), expected_.tasks.size()) << sort << " " << order;
    }
  }
}

// A filter that pins the sort's column to one value: small pages by cursor
// hold exactly the rows of one big page, in its order (the cursor then
// compares start and row id only).
TEST_F(ApiTest, PagesOfASortPinnedByItsFilter) {
  for (const std::string& pinned :
       {std::string("sort=state&state=FINISHED"), std::string("sort=state&state=FAILED"),
        std::string("sort=error_type&error_type=WORKER_DIED"),
        std::string("sort=attempt&attempt=0"),
        "sort=job_id&job_id=" + expected_.tasks.begin()->second.job_id()}) {
    for (const std::string order : {"asc", "desc"}) {
      const std::string base =
          "/api/history/v1/tasks?unit=attempts&" + pinned + "&order=" + order + "&limit=";
      auto [status, whole] = Get(base + "10000");
      ASSERT_EQ(status, 200) << whole;
      std::vector<std::string> want, got;
      for (const json& task : whole["tasks"]) want.push_back(task["task_id"]);
      std::string cursor;
      for (int page = 0; page < 1000; ++page) {
        auto [s2, body] = Get(base + "3" + (cursor.empty() ? "" : "&cursor=" + cursor));
        ASSERT_EQ(s2, 200) << body;
        for (const json& task : body["tasks"]) got.push_back(task["task_id"]);
        if (body["next_cursor"].is_null()) break;
        cursor = body["next_cursor"];
      }
      EXPECT_EQ(got, want) << pinned << " " << order;
    }
  }
}

TEST_F(ApiTest, FiltersSelectExactlyTheMatchingTasks) {
  size_t failed = 0;
  for (const auto& [key, task] : expected_.tasks) failed += StateOf(task) == kFailed ? 1 : 0;
  auto [status, body] = Get("/api/history/v1/tasks?unit=attempts&state=FAILED&limit=10000");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(body["tasks"].size(), failed);
  for (const json& task : body["tasks"]) {
    EXPECT_EQ(task["state"], "FAILED");
    EXPECT_EQ(task["exception"], "ValueError");
    EXPECT_EQ(task["error_type"], "TASK_EXECUTION_EXCEPTION");
  }
  auto [s2, by_exception] =
      Get("/api/history/v1/tasks?unit=attempts&exception=ValueError&limit=10000");
  EXPECT_EQ(by_exception["tasks"].size(), failed);
  auto [s3, slow] = Get("/api/history/v1/tasks?unit=attempts&min_running_ms=0&limit=10000");
  size_t ran = 0;
  for (const auto& [key, task] : expected_.tasks) ran += DurationsOf(task).running_ns != kNoTime;
  EXPECT_EQ(slow["tasks"].size(), ran);
}

TEST_F(ApiTest, HostileParametersAreValuesNeverSql) {
  const std::string injections[] = {"') OR 1=1 --", "*", "\"", "'",
                                    "\"'",          "%", "_",  "1; DROP TABLE tasks"};
  for (const std::string& bad : injections) {
    SCOPED_TRACE(bad);
    for (const char* key : {"function", "name", "exception", "node_id", "job_id"}) {
      auto [status, body] = Get(std::string("/api/history/v1/tasks?") + key + "=" + Escape(bad));
      EXPECT_EQ(status, 200) << key;
      EXPECT_TRUE(body["tasks"].empty()) << key;
    }
    for (const char* key :
         {"state", "type", "error_type", "task_id", "worker_id", "actor_id", "attempt", "limit",
          "sort", "order", "cursor", "min_running_ms", "started_after_ms"}) {
      EXPECT_EQ(Get(std::string("/api/history/v1/tasks?") + key + "=" + Escape(bad)).first, 400)
          << key;
    }
    EXPECT_EQ(Get("/api/history/v1/tasks?" + Escape(bad) + "=1").first, 400);
    EXPECT_EQ(Get("/api/history/v1/counts?session=" + Escape(bad)).first, 404);
    auto [s, ray] =
        Get("/api/v0/tasks?filter_keys=func_or_class_name&filter_predicates=%3D&"
            "filter_values=" +
            Escape(bad));
    EXPECT_EQ(s, 200);
    EXPECT_EQ(ray["data"]["result"]["num_filtered"], 0);
    EXPECT_EQ(
        Get("/api/v0/tasks?filter_keys=" + Escape(bad) + "&filter_predicates=%3D&filter_values=1")
            .first,
        400);
  }
  // The index is intact after all of that.
  EXPECT_EQ(Get("/api/history/v1/counts").second["attempts"], expected_.tasks.size());
  EXPECT_EQ(Get("/api/history/v1/tasks?state=RUNNING%27").first, 400);
  EXPECT_EQ(Get("/api/history/v1/tasks?cursor=%ZZ").first, 400);
}

// Found with tests/fuzz/history_query_fuzz: 1e15 ms was accepted and its
// nanoseconds (1e21) overflowed int64 (undefined behaviour).
TEST_F(ApiTest, MillisecondsBeyondInt64NanosecondsAreRefused) {
  for (const char* key : {"min_total_ms", "created_after_ms", "ended_before_ms"}) {
    EXPECT_EQ(Get(std::string("/api/history/v1/tasks?") + key + "=1e15").first, 400) << key;
    EXPECT_EQ(Get(std::string("/api/history/v1/tasks?") + key + "=9e12").first, 200) << key;
  }
}

TEST_F(ApiTest, OneTaskWithEveryTransitionErrorAndSpan) {
  const TaskRecord* failed = nullptr;
  for (const auto& [key, task] : expected_.tasks) {
    if (task.raw_state() == kFailed && task.definition.has()) failed = &task;
  }
  ASSERT_NE(failed, nullptr);
  auto [status, body] = Get("/api/history/v1/task?task_id=" + failed->task_id +
                            "&attempt=" + std::to_string(failed->attempt));
  ASSERT_EQ(status, 200) << body;
  EXPECT_EQ(body["state"], "FAILED");
  ASSERT_EQ(body["transitions"].size(), failed->transitions.size());
  for (size_t i = 0; i < failed->transitions.size(); ++i) {
    EXPECT_EQ(body["transitions"][i]["state"], TaskStateName(failed->transitions[i].state));
    EXPECT_EQ(body["transitions"][i]["time_ns"], std::to_string(failed->transitions[i].time_ns));
  }
  EXPECT_EQ(body["error"]["exception"], "ValueError");
  EXPECT_NE(body["error"]["message"].get<std::string>().find("Traceback"), std::string::npos);
  EXPECT_EQ(body["definition"]["function"], failed->definition.value.func_name);
  EXPECT_EQ(body["profile"].size(), failed->profile.size());
  EXPECT_EQ(Get("/api/history/v1/task?task_id=00").first, 404);
  EXPECT_EQ(Get("/api/history/v1/task?task_id=zz").first, 400);
  const std::string job = expected_.jobs.begin()->first;
  auto [s2, job_body] = Get("/api/history/v1/job?job_id=" + job);
  ASSERT_EQ(s2, 200) << job_body;
  EXPECT_EQ(job_body["definition"]["entrypoint"], "python main.py");
}

// Ray's documented schema: field name -> allowed JSON types.
void ExpectRaySchema(const json& task, bool detail) {
  using T = json::value_t;
  const std::map<std::string, std::set<T>> base = {
      {"task_id", {T::string}},
      {"attempt_number", {T::number_unsigned, T::number_integer}},
      {"name", {T::string}},
      {"state", {T::string}},
      {"job_id", {T::string}},
      {"actor_id", {T::string, T::null}},
      {"type", {T::string}},
      {"func_or_class_name", {T::string}},
      {"parent_task_id", {T::string}},
      {"node_id", {T::string, T::null}},
      {"worker_id", {T::string, T::null}},
      {"worker_pid", {T::number_integer, T::number_unsigned, T::null}},
      {"error_type", {T::string, T::null}}};
  const std::map<std::string, std::set<T>> extra = {
      {"language", {T::string, T::null}},
      {"required_resources", {T::object, T::null}},
      {"runtime_env_info", {T::object, T::null}},
      {"placement_group_id", {T::string, T::null}},
      {"events", {T::array, T::null}},
      {"profiling_data", {T::object, T::null}},
      {"creation_time_ms", {T::number_integer, T::number_unsigned, T::null}},
      {"start_time_ms", {T::number_integer, T::number_unsigned, T::null}},
      {"end_time_ms", {T::number_integer, T::number_unsigned, T::null}},
      {"task_log_info", {T::object, T::null}},
      {"error_message", {T::string, T::null}},
      {"is_debugger_paused", {T::boolean, T::null}}};
  size_t expected_fields = base.size() + (detail ? extra.size() : 0);
  EXPECT_EQ(task.size(), expected_fields) << task;
  for (const auto* fields : {&base, &extra}) {
    if (fields == &extra && !detail) break;
    for (const auto& [name, types] : *fields) {
      ASSERT_TRUE(task.contains(name)) << name;
      EXPECT_TRUE(types.contains(task[name].type())) << name << ": " << task[name];
    }
  }
  static const std::set<std::string> kStates = {"NIL",
                                                "PENDING_ARGS_AVAIL",
                                                "PENDING_NODE_ASSIGNMENT",
                                                "PENDING_OBJ_STORE_MEM_AVAIL",
                                                "PENDING_ARGS_FETCH",
                                                "SUBMITTED_TO_WORKER",
                                                "PENDING_ACTOR_TASK_ARGS_FETCH",
                                                "PENDING_ACTOR_TASK_ORDERING_OR_CONCURRENCY",
                                                "RUNNING",
                                                "RUNNING_IN_RAY_GET",
                                                "RUNNING_IN_RAY_WAIT",
                                                "FINISHED",
                                                "FAILED",
                                                "GETTING_AND_PINNING_ARGS"};
  EXPECT_TRUE(kStates.contains(task["state"])) << task["state"];
  if (detail) {
    for (const json& event : task["events"]) {
      EXPECT_TRUE(event["state"].is_string());
      EXPECT_TRUE(event["created_ms"].is_number());
    }
  }
}

TEST_F(ApiTest, RayStateApiListAnswersInRaysSchema) {
  for (const bool detail : {false, true}) {
    auto [status, body] = Get(std::string("/api/v0/tasks?limit=100000&detail=") +
                              (detail ? "1" : "0") + "&exclude_driver=false");
    ASSERT_EQ(status, 200) << body;
    EXPECT_EQ(body["result"], true);
    EXPECT_EQ(body["msg"], "");
    const json& result = body["data"]["result"];
    for (const char* key : {"total", "num_after_truncation", "num_filtered", "result",
                            "partial_failure_warning", "warnings"}) {
      EXPECT_TRUE(result.contains(key)) << key;
    }
    EXPECT_EQ(result["total"], expected_.tasks.size());
    EXPECT_EQ(result["num_filtered"], expected_.tasks.size());
    ASSERT_EQ(result["result"].size(), expected_.tasks.size());
    for (const json& task : result["result"]) ExpectRaySchema(task, detail);
  }
  // A filter and its complement partition the tasks.
  auto [s1, failed] =
      Get("/api/v0/"
          "tasks?filter_keys=state&filter_predicates=%3D&filter_values=FAILED&exclude_driver=0");
  auto [s2, other] =
      Get("/api/v0/"
          "tasks?filter_keys=state&filter_predicates=%21%3D&filter_values=FAILED&exclude_driver=0");
  ASSERT_EQ(s1, 200);
  ASSERT_EQ(s2, 200);
  EXPECT_EQ(failed["data"]["result"]["num_filtered"].get<int64_t>() +
                other["data"]["result"]["num_filtered"].get<int64_t>(),
            static_cast<int64_t>(expected_.tasks.size()));
  for (const json& task : failed["data"]["result"]["result"]) EXPECT_EQ(task["state"], "FAILED");
  // The older session by Ray's session name.
  auto [s3, older] = Get("/api/v0/tasks?session_name=session_2026-01-01_00-00-00_000000_1");
  EXPECT_EQ(s3, 200);
  EXPECT_NE(older["data"]["result"]["total"], expected_.tasks.size());
  EXPECT_EQ(Get("/api/v0/tasks?filter_keys=state&filter_predicates=%3E&filter_values=1").first,
            400);
  EXPECT_EQ(Get("/api/v0/tasks?session_name=nope").first, 404);
}

TEST_F(ApiTest, RayStateApiSummaryAnswersInRaysSchema) {
  auto [status, body] = Get("/api/v0/tasks/summarize?summary_by=func_name");
  ASSERT_EQ(status, 200) << body;
  const json& result = body["data"]["result"];
  const json& cluster = result["result"]["node_id_to_summary"]["cluster"];
  EXPECT_EQ(cluster["summary_by"], "func_name");
  int64_t total = 0;
  for (const auto& [name, entry] : cluster["summary"].items()) {
    EXPECT_EQ(entry["func_or_class_name"], name);
    EXPECT_TRUE(entry["type"].is_string());
    for (const auto& [state, count] : entry["state_counts"].items()) total += count.get<int64_t>();
  }
  EXPECT_EQ(total, cluster["total_tasks"].get<int64_t>() +
                       cluster["total_actor_tasks"].get<int64_t>() +
                       cluster["total_actor_scheduled"].get<int64_t>());
  EXPECT_EQ(total, result["num_filtered"]);
  // The dashboard's call: one job.
  const std::string job = expected_.jobs.begin()->first;
  auto [s2, by_job] =
      Get("/api/v0/tasks/summarize?filter_keys=job_id&filter_predicates=%3D&filter_values=" + job);
  ASSERT_EQ(s2, 200);
  int64_t want = 0;
  for (const auto& [key, task] : expected_.tasks) {
    want += task.job_id() == job && task.definition.has() ? 1 : 0;
  }
  int64_t got = 0;
  for (const auto& [name, entry] :
       by_job["data"]["result"]["result"]["node_id_to_summary"]["cluster"]["summary"].items()) {
    if (name.empty()) continue;
    for (const auto& [state, count] : entry["state_counts"].items()) got += count.get<int64_t>();
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(Get("/api/v0/tasks/summarize?summary_by=lineage").first, 400);
}

TEST_F(ApiTest, HealthReadinessAndMetricsAreOnTheOpsListenerOnly) {
  asio::io_context ops_io;
  HttpServer ops(ops_io, HttpServerOptions{});
  api_->AddOpsRoutes(ops, {{"api", server_.get()}, {"ops", &ops}});
  absl::StatusOr<uint16_t> ops_port = ops.Start();
  ASSERT_TRUE(ops_port.ok());
  test::IoThread ops_thread(ops_io);
  test::RawHttpClient client(*ops_port);
  client.Send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto response = client.Read();
  EXPECT_EQ(response.result_int(), 200);
  EXPECT_NE(response.body().find("rayhist_query_duration_seconds_bucket"), std::string::npos);
  EXPECT_NE(response.body().find("rayhist_http_requests_total{listener=\"api\"}"),
            std::string::npos);
  test::RawHttpClient health(*ops_port);
  health.Send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(health.Read().result_int(), 200);
  test::RawHttpClient ready(*ops_port);
  ready.Send("GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(ready.Read().result_int(), 200);
  // /readyz follows the indexer's last pass; the data routes answer anyway.
  metrics_.last_pass_ok = false;
  test::RawHttpClient not_ready(*ops_port);
  not_ready.Send("GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(not_ready.Read().result_int(), 503);
  EXPECT_EQ(Get("/api/history/v1/counts").first, 200);
  metrics_.last_pass_ok = true;
  // The API listener serves task data only.
  for (const char* path : {"/metrics", "/healthz", "/readyz"}) {
    EXPECT_EQ(Get(path).first, 404) << path;
  }
  ops.Stop();
}

}  // namespace
}  // namespace rayagg::history

namespace rayagg::history {
namespace {

// Every route refuses a parameter it does not know: a typo must not answer
// 200 for another session (counts?sesion=X answered the newest session).
TEST_F(ApiTest, EveryRouteRefusesUnknownParameters) {
  for (const char* route :
       {"/api/history/v1/sessions", "/api/history/v1/counts", "/api/history/v1/groups",
        "/api/history/v1/tasks", "/api/history/v1/task", "/api/history/v1/actors",
        "/api/history/v1/actor", "/api/history/v1/jobs", "/api/history/v1/job", "/api/v0/tasks",
        "/api/v0/tasks/summarize", "/api/history/v1/tasks/count"}) {
    auto [status, body] = Get(std::string(route) + "?sesion=x");
    EXPECT_EQ(status, 400) << route;
    EXPECT_NE(body["msg"].get<std::string>().find("sesion"), std::string::npos) << route;
  }
  // Ray's own parameter names are known on its routes.
  EXPECT_EQ(Get("/api/v0/tasks?limit=5&timeout=30&detail=1&exclude_driver=0").first, 200);
  EXPECT_EQ(Get("/api/v0/tasks/summarize?summary_by=func_name&timeout=30").first, 200);
}

// The search over HTTP: the list, its count and the detail agree; a query
// under 3 characters is a JSON 400 naming q.
TEST_F(ApiTest, SearchOverHttp) {
  std::string function;
  for (const auto& [key, task] : expected_.tasks) {
    if (task.definition.has() && task.definition.value.func_name.size() >= 6) {
      function = task.definition.value.func_name;
    }
  }
  ASSERT_FALSE(function.empty());
  const std::string q = Escape(function.substr(function.size() - 6));
  auto [status, list] = Get("/api/history/v1/tasks?unit=attempts&limit=10000&q=" + q);
  ASSERT_EQ(status, 200) << list.dump();
  ASSERT_FALSE(list["tasks"].empty());
  for (const json& task : list["tasks"]) EXPECT_TRUE(task["matches"].is_object()) << task.dump();
  auto [s2, count] = Get("/api/history/v1/tasks/count?unit=attempts&q=" + q);
  ASSERT_EQ(s2, 200);
  EXPECT_EQ(count["total"], list["tasks"].size());
  EXPECT_EQ(count["unit"], "attempts");
  const std::string task_id = list["tasks"][0]["task_id"];
  auto [s3, detail] = Get("/api/history/v1/task?task_id=" + task_id + "&q=" + q);
  ASSERT_EQ(s3, 200);
  EXPECT_TRUE(detail["matches"].contains("function")) << detail["matches"].dump();
  for (const char* path : {"/api/history/v1/tasks?q=ab", "/api/history/v1/tasks/count?q=%20ab%20",
                           "/api/history/v1/task?q=a&task_id=00"}) {
    auto [bad, body] = Get(path);
    EXPECT_EQ(bad, 400) << path;
    EXPECT_EQ(body["msg"].get<std::string>().substr(0, 2), "q:") << path;
  }
}

// A value is bound as what it is: Ray's name filter once bound any value
// starting with "b:" as a blob, so it matched nothing.
TEST_F(ApiTest, FilterValuesKeepTheirTypes) {
  FoldedSession folded;
  const TaskRecord* source = nullptr;
  for (const auto& [key, task] : expected_.tasks) {
    if (task.definition.has()) source = &task;
  }
  ASSERT_NE(source, nullptr);
  TaskRecord task = *source;
  task.definition.value.task_name = "b:shard_17";
  folded.tasks.emplace(TaskKey{task.task_id, task.attempt}, task);
  IndexWriter writer(*db_);
  absl::StatusOr<int64_t> id = writer.EnsureSession(
      {"raycluster", "team-b", "", "typed", "session_2026-02-01_00-00-00_000000_1"}, true);
  ASSERT_TRUE(id.ok());
  BatchInput batch;
  batch.folded = std::move(folded);
  ASSERT_TRUE(writer.WriteBatch(*id, std::move(batch)).ok());
  const std::string session =
      "session=raycluster/team-b/typed/session_2026-02-01_00-00-00_000000_1";
  auto [s1, ours] = Get("/api/history/v1/tasks?" + session + "&name=b%3Ashard_17");
  ASSERT_EQ(s1, 200) << ours;
  EXPECT_EQ(ours["tasks"].size(), 1u);
  auto [s2, ray] =
      Get("/api/v0/tasks?session_name=raycluster/team-b/typed/session_2026-02-01_00-00-00_000000_1&"
          "filter_keys=name&filter_predicates=%3D&filter_values=b%3Ashard_17");
  ASSERT_EQ(s2, 200) << ray;
  EXPECT_EQ(ray["data"]["result"]["num_filtered"], 1);
  EXPECT_EQ(ray["data"]["result"]["result"].size(), 1u);
}

// The work budget is a scope: a query that ran out of it leaves nothing
// behind on the (pooled) connection for the next one.
TEST_F(ApiTest, AnExhaustedBudgetEndsWithItsScope) {
  constexpr std::string_view kMillionSteps =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) "
      "SELECT count(*) FROM c";
  auto run = [&]() -> absl::StatusOr<int64_t> {
    absl::StatusOr<SqliteStatement> statement = db_->Prepare(kMillionSteps);
    if (!statement.ok()) return statement.status();
    absl::StatusOr<bool> row = statement->Step();
    if (!row.ok()) return row.status();
    return statement->Int(0);
  };
  {
    SqliteStepBudget budget(*db_, 10);
    absl::StatusOr<int64_t> starved = run();
    ASSERT_FALSE(starved.ok());
    EXPECT_EQ(starved.status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_TRUE(db_->budget_exhausted());
  }
  EXPECT_FALSE(db_->budget_exhausted());
  absl::StatusOr<int64_t> fed = run();
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_EQ(*fed, 1'000'000);
}

TEST_F(ApiTest, ActorAndJobListsPageThroughEveryEntity) {
  std::set<std::string> actors;
  std::string cursor;
  for (int page = 0; page < 1000; ++page) {
    auto [status, body] = Get("/api/history/v1/actors?limit=1" +
                              (cursor.empty() ? std::string() : "&cursor=" + Escape(cursor)));
    ASSERT_EQ(status, 200) << body;
    for (const json& actor : body["actors"]) {
      EXPECT_TRUE(actors.insert(actor["actor_id"].get<std::string>()).second);
      EXPECT_TRUE(actor.contains("state"));
    }
    if (body["next_cursor"].is_null()) break;
    cursor = body["next_cursor"].get<std::string>();
  }
  std::set<std::string> want_actors;
  for (const auto& [id, actor] : expected_.actors) want_actors.insert(id);
  EXPECT_EQ(actors, want_actors);

  std::set<std::string> jobs;
  cursor.clear();
  int64_t tasks = 0;
  for (int page = 0; page < 1000; ++page) {
    auto [status, body] = Get("/api/history/v1/jobs?limit=1" +
                              (cursor.empty() ? std::string() : "&cursor=" + Escape(cursor)));
    ASSERT_EQ(status, 200) << body;
    for (const json& job : body["jobs"]) {
      EXPECT_TRUE(jobs.insert(job["job_id"].get<std::string>()).second);
      tasks += job["tasks"]["attempts"].get<int64_t>();
    }
    if (body["next_cursor"].is_null()) break;
    cursor = body["next_cursor"].get<std::string>();
  }
  std::set<std::string> want_jobs;
  for (const auto& [id, job] : expected_.jobs) want_jobs.insert(id);
  EXPECT_EQ(jobs, want_jobs);
  int64_t tasks_of_known_jobs = 0;
  for (const auto& [key, task] : expected_.tasks) {
    tasks_of_known_jobs += expected_.jobs.contains(task.job_id()) ? 1 : 0;
  }
  EXPECT_EQ(tasks, tasks_of_known_jobs);
  EXPECT_EQ(Get("/api/history/v1/actors?state=NOPE").first, 400);
}

TEST_F(ApiTest, SessionsFilterByTheTimeTheyWereActive) {
  auto [status, all] = Get("/api/history/v1/sessions");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(all["sessions"].size(), 2u);
  const json& newest = all["sessions"][0];
  const int64_t first = newest["first_event_time_ms"].get<int64_t>();
  const int64_t last = newest["last_event_time_ms"].get<int64_t>();
  auto count = [&](const std::string& query) {
    auto [s, body] = Get("/api/history/v1/sessions?" + query);
    EXPECT_EQ(s, 200) << body;
    size_t matched = 0;
    for (const json& session : body["sessions"]) {
      matched += session["session"] == newest["session"] ? 1 : 0;
    }
    return matched;
  };
  EXPECT_EQ(count("active_after_ms=" + std::to_string(first)), 1u);
  EXPECT_EQ(count("active_after_ms=" + std::to_string(last + 1)), 0u);
  EXPECT_EQ(count("active_before_ms=" + std::to_string(last + 1)), 1u);
  EXPECT_EQ(count("active_before_ms=" + std::to_string(first)), 0u);
  EXPECT_EQ(Get("/api/history/v1/sessions?active_after_ms=-1").first, 400);
}

// Ray's task list is bounded in bytes: it stops where the answer would
// pass api.max_answer_bytes and says so in Ray's own fields.
TEST_F(ApiTest, RayTaskListStopsAtTheAnswerByteLimit) {
  QueryLimits limits;
  limits.max_answer_bytes = 4096;
  HistoryQueries queries(*db_, limits);
  absl::StatusOr<QueryParams> params =
      QueryParams::FromTarget("/api/v0/tasks?detail=1&limit=10000&exclude_driver=0");
  ASSERT_TRUE(params.ok());
  absl::StatusOr<json> answer = queries.RayListTasks(*params);
  ASSERT_TRUE(answer.ok()) << answer.status();
  const json& result = (*answer)["data"]["result"];
  EXPECT_LT(result["num_after_truncation"].get<int64_t>(), result["total"].get<int64_t>());
  EXPECT_EQ(result["num_after_truncation"], result["result"].size());
  EXPECT_FALSE(result["partial_failure_warning"].get<std::string>().empty());
  EXPECT_LE(result["result"].dump().size(), 4096u + 64u);
}

}  // namespace
}  // namespace rayagg::history

namespace rayagg::history {
namespace {

// The latest attempt of each task id, as the index's tasks unit counts.
std::map<std::string, const TaskRecord*> LatestAttempts(const FoldedSession& folded) {
  std::map<std::string, const TaskRecord*> latest;
  for (const auto& [key, task] : folded.tasks) {
    const TaskRecord*& slot = latest[task.task_id];
    if (slot == nullptr || slot->attempt < task.attempt) slot = &task;
  }
  return latest;
}

TEST_F(ApiTest, TasksCountByTheirLatestAttemptAndAttemptsBesideThem) {
  const auto latest = LatestAttempts(expected_);
  ASSERT_LT(latest.size(), expected_.tasks.size()) << "the random session has no retries";
  auto [status, counts] = Get("/api/history/v1/counts");
  ASSERT_EQ(status, 200) << counts;
  EXPECT_EQ(counts["unit"], "tasks");
  EXPECT_EQ(counts["total"], latest.size());
  EXPECT_EQ(counts["tasks"], latest.size());
  EXPECT_EQ(counts["attempts"], expected_.tasks.size());
  std::map<std::string, int64_t> want;
  for (const auto& [id, task] : latest) ++want[TaskStateName(StateOf(*task))];
  EXPECT_EQ(counts["by_state"], json(want));
  EXPECT_EQ(Get("/api/history/v1/counts?unit=attempts").second["total"], expected_.tasks.size());
  EXPECT_EQ(Get("/api/history/v1/counts?unit=runs").first, 400);

  // The list holds each task once, at its latest attempt.
  auto [s2, list] = Get("/api/history/v1/tasks?limit=10000");
  ASSERT_EQ(s2, 200) << list;
  ASSERT_EQ(list["tasks"].size(), latest.size());
  for (const json& task : list["tasks"]) {
    const TaskRecord* want_task = latest.at(task["task_id"].get<std::string>());
    EXPECT_EQ(task["attempt"], want_task->attempt);
    EXPECT_EQ(task["attempts"], want_task->attempt + 1);
    EXPECT_TRUE(task["latest"].get<bool>());
  }
  // Groups agree with the counts in both units.
  auto [s3, groups] = Get("/api/history/v1/groups?by=job");
  ASSERT_EQ(s3, 200) << groups;
  int64_t tasks = 0, attempts = 0;
  for (const json& group : groups["groups"]) {
    tasks += group["total"].get<int64_t>();
    attempts += group["attempts"].get<int64_t>();
  }
  EXPECT_EQ(tasks, static_cast<int64_t>(latest.size()));
  EXPECT_EQ(attempts, static_cast<int64_t>(expected_.tasks.size()));
}

TEST_F(ApiTest, OutcomesTellFinallyFailedFromRecovered) {
  size_t finally_failed = 0, recovered = 0;
  for (const auto& [id, task] : LatestAttempts(expected_)) {
    finally_failed += StateOf(*task) == kFailed ? 1 : 0;
    recovered += StateOf(*task) == kFinished && task->attempt > 0 ? 1 : 0;
  }
  ASSERT_GT(recovered, 0u) << "the random session has no recovered task";
  auto [s1, failed] = Get("/api/history/v1/tasks?outcome=finally_failed&limit=10000");
  ASSERT_EQ(s1, 200) << failed;
  EXPECT_EQ(failed["tasks"].size(), finally_failed);
  auto [s2, ok] = Get("/api/history/v1/tasks?outcome=recovered&limit=10000");
  ASSERT_EQ(s2, 200) << ok;
  EXPECT_EQ(ok["tasks"].size(), recovered);
  for (const json& task : ok["tasks"]) {
    EXPECT_EQ(task["state"], "FINISHED");
    EXPECT_GT(task["attempt"].get<int64_t>(), 0);
  }
  EXPECT_EQ(Get("/api/history/v1/tasks?outcome=maybe").first, 400);
}

// A histogram bucket is a filter: the list with its bounds holds exactly
// its count, in both units and for every duration.
TEST_F(ApiTest, EveryHistogramBucketIsExactlyItsTasks) {
  for (const std::string unit : {"tasks", "attempts"}) {
    auto [status, groups] = Get("/api/history/v1/groups?by=function&unit=" + unit);
    ASSERT_EQ(status, 200) << groups;
    int checked = 0;
    for (const json& group : groups["groups"]) {
      for (const std::string duration : {"pending", "running", "total"}) {
        for (const json& bucket : group["durations"][duration]["histogram"]) {
          const std::string target =
              "/api/history/v1/tasks?limit=10000&unit=" + unit +
              "&function=" + Escape(group["key"].get<std::string>()) + "&" + duration +
              "_gt_us=" + std::to_string(bucket["gt_us"].get<int64_t>()) + "&" + duration +
              "_le_us=" + std::to_string(bucket["le_us"].get<int64_t>());
          auto [s, list] = Get(target);
          ASSERT_EQ(s, 200) << list;
          EXPECT_EQ(list["tasks"].size(), bucket["count"].get<size_t>()) << target;
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 0);
  }
  EXPECT_EQ(Get("/api/history/v1/tasks?total_gt_us=x").first, 400);
}

TEST_F(ApiTest, OnlyIndexedColumnsSort) {
  EXPECT_EQ(Get("/api/history/v1/tasks?sort=worker_pid").first, 400);
  // Both plans (a filter's index then a sort, or the sort's index with the
  // filter checked row by row) page through exactly what the filter keeps.
  for (const int64_t max_rows_sorted : {int64_t{0}, int64_t{1'000'000}}) {
    QueryLimits limits;
    limits.max_rows_sorted_per_page = max_rows_sorted;
    HistoryQueries queries(*db_, limits);
    for (const std::string filter : {"state=FAILED", "state=FINISHED,FAILED,RUNNING&function=f1"}) {
      for (const TaskSort& sort : kTaskSorts) {
        std::set<std::pair<std::string, int64_t>> seen;
        std::string cursor;
        for (int page = 0; page < 1000; ++page) {
          absl::StatusOr<QueryParams> params = QueryParams::FromTarget(
              "/t?unit=attempts&limit=3&sort=" + std::string(sort.name) + "&" + filter +
              (cursor.empty() ? std::string() : "&cursor=" + cursor));
          ASSERT_TRUE(params.ok());
          absl::StatusOr<json> body = queries.Tasks(*params);
          ASSERT_TRUE(body.ok()) << body.status();
          for (const json& task : (*body)["tasks"]) {
            EXPECT_TRUE(seen.emplace(task["task_id"], task["attempt"].get<int64_t>()).second);
          }
          if ((*body)["next_cursor"].is_null()) break;
          cursor = (*body)["next_cursor"];
        }
        auto [s, all] = Get("/api/history/v1/tasks?unit=attempts&limit=10000&" + filter);
        EXPECT_EQ(seen.size(), all["tasks"].size()) << filter << " " << sort.name;
      }
    }
  }
}

}  // namespace
}  // namespace rayagg::history

namespace rayagg::history {
namespace {

// Exports stream any filtered set in chunks, outside the reader pool.
TEST_F(ApiTest, ExportsStreamEveryTaskAndRefuseBeyondTheirLimit) {
  test::RawHttpClient client(port_);
  client.Send(
      "GET /api/history/v1/export?format=ndjson&unit=attempts HTTP/1.1\r\nHost: x\r\n"
      "Connection: close\r\n\r\n");
  auto response = client.Read();
  ASSERT_EQ(response.result_int(), 200) << response.body();
  EXPECT_EQ(response[http::field::transfer_encoding], "chunked");
  EXPECT_NE(std::string(response[http::field::content_disposition]).find("attachment"),
            std::string::npos);
  std::set<std::pair<std::string, int64_t>> seen;
  size_t start = 0;
  const std::string& body = response.body();
  while (start < body.size()) {
    const size_t end = body.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    const json row = json::parse(body.substr(start, end - start), nullptr, false);
    ASSERT_FALSE(row.is_discarded());
    EXPECT_TRUE(seen.emplace(row["task_id"], row["attempt"].get<int64_t>()).second);
    start = end + 1;
  }
  EXPECT_EQ(seen.size(), expected_.tasks.size());
  auto [bad, why] = Get("/api/history/v1/export?format=xml");
  EXPECT_EQ(bad, 400);
  EXPECT_EQ(why["result"], false);

  // With no export slot free, the answer is 429 with Retry-After.
  asio::io_context io;
  HttpServer busy_server(io, HttpServerOptions{});
  HistoryApi busy(
      *readers_, metrics_, ApiOptions{.limits = {}, .index_dir = dir_.path(), .max_exports = 0},
      [] { return true; }, [] { return int64_t{0}; });
  busy.AddRoutes(busy_server);
  absl::StatusOr<uint16_t> busy_port = busy_server.Start();
  ASSERT_TRUE(busy_port.ok());
  test::IoThread busy_thread(io);
  test::RawHttpClient refused(*busy_port);
  refused.Send(
      "GET /api/history/v1/export?format=csv HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto answer = refused.Read();
  EXPECT_EQ(answer.result_int(), 429);
  EXPECT_EQ(answer[http::field::retry_after], "5");
  busy_server.Stop();
}

}  // namespace
}  // namespace rayagg::history
