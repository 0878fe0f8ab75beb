// Secrets never leave through the API (docs/HISTORY.md "The page"): a real
// index holding a task, an actor and a job whose runtime envs and metadata
// carry secrets under matching keys, served by a real loopback HttpServer.
// The bytes of every answer of every route (the JSON API, exports, Ray's
// State API with detail, the search) are checked for the secret values;
// with ui.show_secrets they are answered as they are.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "history/api/api_server.h"
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

constexpr std::string_view kTaskSecret = "tok-7f3a9c2e51d84b06";
constexpr std::string_view kActorSecret = "pw-0c5e8b1d2a7f9e34";
constexpr std::string_view kJobEnvSecret = "key-5b2e7d9a1c3f8e60";
constexpr std::string_view kMetadataSecret = "xoxb-9d1e4a7c2b5f8e03";
constexpr std::string_view kSecrets[] = {kTaskSecret, kActorSecret, kJobEnvSecret, kMetadataSecret};

const std::string kTaskId(24, '\x11');
const std::string kActorId(16, '\x22');
const std::string kJobId = "\x01\x00\x00\x00";

std::string Hex(std::string_view raw) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : raw) {
    out += kDigits[static_cast<unsigned char>(c) >> 4];
    out += kDigits[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

RayEvent Base(RayEvent::EventType type, int64_t at, char id) {
  RayEvent event;
  event.set_event_id(std::string(28, id));
  event.set_event_type(type);
  event.set_source_type(RayEvent::CORE_WORKER);
  SetTime(event.mutable_timestamp(), at);
  event.set_session_name("session_2026-02-01_00-00-00_000000_1");
  return event;
}

std::vector<RayEvent> EventsWithSecrets() {
  const int64_t at = 1'760'000'000'000'000'000;
  std::vector<RayEvent> events;
  RayEvent job = Base(RayEvent::DRIVER_JOB_DEFINITION_EVENT, at, 'j');
  auto* j = job.mutable_driver_job_definition_event();
  j->set_job_id(kJobId);
  j->set_entrypoint("python train.py");
  j->mutable_config()->set_serialized_runtime_env(
      json({{"env_vars", {{"HF_API_KEY", kJobEnvSecret}, {"HOME", "/home/ray"}}}}).dump());
  (*j->mutable_config()->mutable_metadata())["slack_token"] = std::string(kMetadataSecret);
  (*j->mutable_config()->mutable_metadata())["team"] = "research";
  events.push_back(job);

  RayEvent task = Base(RayEvent::TASK_DEFINITION_EVENT, at, 't');
  auto* t = task.mutable_task_definition_event();
  t->set_task_id(kTaskId);
  t->set_job_id(kJobId);
  t->set_task_name("train_step");
  t->mutable_task_func()->mutable_python_function_descriptor()->set_function_name("train_step");
  t->set_serialized_runtime_env(
      json({{"env_vars", {{"API_TOKEN", kTaskSecret}, {"OMP_NUM_THREADS", "4"}}},
            {"pip", {"torch"}}})
          .dump());
  events.push_back(task);
  RayEvent life = Base(RayEvent::TASK_LIFECYCLE_EVENT, at, 'l');
  auto* l = life.mutable_task_lifecycle_event();
  l->set_task_id(kTaskId);
  l->set_job_id(kJobId);
  for (auto state : {ray::rpc::PENDING_NODE_ASSIGNMENT, ray::rpc::RUNNING, ray::rpc::FINISHED}) {
    auto* transition = l->add_state_transitions();
    transition->set_state(state);
    SetTime(transition->mutable_timestamp(), at + 1000 * state);
  }
  events.push_back(life);

  RayEvent actor = Base(RayEvent::ACTOR_DEFINITION_EVENT, at, 'a');
  auto* a = actor.mutable_actor_definition_event();
  a->set_actor_id(kActorId);
  a->set_job_id(kJobId);
  a->set_class_name("Trainer");
  a->set_serialized_runtime_env(json({{"env_vars", {{"DB_PASSWORD", kActorSecret}}}}).dump());
  events.push_back(actor);
  return events;
}

class RedactionApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir_.path(), 8 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    IndexWriter writer(*db_);
    FoldedSession folded;
    for (const RayEvent& event : EventsWithSecrets()) FoldEvent(event, folded);
    absl::StatusOr<int64_t> id =
        writer.EnsureSession(SessionIdentity{"rayjob", "team-a", "nightly", "cluster-1",
                                             "session_2026-02-01_00-00-00_000000_1"},
                             true);
    ASSERT_TRUE(id.ok());
    BatchInput batch;
    batch.folded = std::move(folded);
    ASSERT_TRUE(writer.WriteBatch(*id, std::move(batch)).ok());
  }
  void TearDown() override { StopServer(); }

  void StartServer(bool show_secrets) {
    StopServer();
    UiOptions ui;
    ui.show_secrets = show_secrets;
    readers_ = std::make_unique<ReaderPool>(dir_.path(), 2, 4 << 20);
    api_ = std::make_unique<HistoryApi>(
        *readers_, metrics_, ApiOptions{.limits = {}, .index_dir = dir_.path(), .ui = ui},
        [] { return true; }, [] { return int64_t{0}; });
    io_ = std::make_unique<asio::io_context>();
    server_ = std::make_unique<HttpServer>(*io_, HttpServerOptions{});
    api_->AddRoutes(*server_);
    absl::StatusOr<uint16_t> port = server_->Start();
    ASSERT_TRUE(port.ok());
    port_ = *port;
    io_thread_ = std::make_unique<test::IoThread>(*io_);
  }
  void StopServer() {
    if (server_) server_->Stop();
    io_thread_.reset();
    server_.reset();
  }

  // The answer's status and raw bytes (a streamed export de-chunked).
  std::pair<int, std::string> Get(const std::string& target) {
    test::RawHttpClient client(port_);
    client.Send("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    auto response = client.Read();
    return {response.result_int(), response.body()};
  }

  std::vector<std::string> EveryRoute() const {
    const std::string session =
        "session=rayjob%2Fteam-a%2Fnightly%2Fcluster-1%2F"
        "session_2026-02-01_00-00-00_000000_1";
    const std::string task = Hex(kTaskId), actor = Hex(kActorId), job = Hex(kJobId);
    return {"/api/history/v1/sessions",
            "/api/history/v1/counts?" + session,
            "/api/history/v1/groups?" + session,
            "/api/history/v1/groups?by=job&" + session,
            "/api/history/v1/tasks?" + session,
            "/api/history/v1/tasks/count?" + session,
            "/api/history/v1/tasks?q=7f3a9c2e&" + session,
            "/api/history/v1/task?" + session + "&task_id=" + task,
            "/api/history/v1/task?" + session + "&task_id=" + task + "&q=train",
            "/api/history/v1/actors?" + session,
            "/api/history/v1/actor?" + session + "&actor_id=" + actor,
            "/api/history/v1/jobs?" + session,
            "/api/history/v1/job?" + session + "&job_id=" + job,
            "/api/history/v1/export?format=ndjson&" + session,
            "/api/history/v1/export?format=csv&" + session,
            "/api/v0/tasks?detail=true",
            "/api/v0/tasks",
            "/api/v0/tasks/summarize",
            "/api/history/v1/ui"};
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
  HistoryMetrics metrics_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<HistoryApi> api_;
  std::unique_ptr<asio::io_context> io_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<test::IoThread> io_thread_;
  uint16_t port_ = 0;
};

TEST_F(RedactionApiTest, NoSecretLeavesThroughAnyRoute) {
  StartServer(/*show_secrets=*/false);
  for (const std::string& target : EveryRoute()) {
    const auto [status, body] = Get(target);
    EXPECT_EQ(status, 200) << target << ": " << body;
    for (std::string_view secret : kSecrets) {
      EXPECT_EQ(body.find(secret), std::string::npos) << target << " holds " << secret;
    }
  }
  const std::string session = "session=session_2026-02-01_00-00-00_000000_1";
  // What is hidden is marked, and the rest is answered.
  json task =
      json::parse(Get("/api/history/v1/task?" + session + "&task_id=" + Hex(kTaskId)).second);
  json env = json::parse(task["definition"]["runtime_env"].get<std::string>());
  EXPECT_EQ(env["env_vars"]["API_TOKEN"], "\u2022\u2022\u2022");
  EXPECT_EQ(env["env_vars"]["OMP_NUM_THREADS"], "4");
  EXPECT_EQ(env["pip"], json({"torch"}));

  json actor =
      json::parse(Get("/api/history/v1/actor?" + session + "&actor_id=" + Hex(kActorId)).second);
  env = json::parse(actor["definition"]["runtime_env"].get<std::string>());
  EXPECT_EQ(env["env_vars"]["DB_PASSWORD"], "\u2022\u2022\u2022");

  json job = json::parse(Get("/api/history/v1/job?" + session + "&job_id=" + Hex(kJobId)).second);
  env = json::parse(job["definition"]["runtime_env"].get<std::string>());
  EXPECT_EQ(env["env_vars"]["HF_API_KEY"], "\u2022\u2022\u2022");
  EXPECT_EQ(env["env_vars"]["HOME"], "/home/ray");
  EXPECT_EQ(job["definition"]["metadata"]["slack_token"], "\u2022\u2022\u2022");
  EXPECT_EQ(job["definition"]["metadata"]["team"], "research");

  json ray = json::parse(Get("/api/v0/tasks?detail=true").second);
  const json& row = ray["data"]["result"]["result"][0];
  env = json::parse(row["runtime_env_info"]["serialized_runtime_env"].get<std::string>());
  EXPECT_EQ(env["env_vars"]["API_TOKEN"], "\u2022\u2022\u2022");
}

TEST_F(RedactionApiTest, ShowSecretsAnswersThemAsTheyAre) {
  StartServer(/*show_secrets=*/true);
  const std::string session = "session=session_2026-02-01_00-00-00_000000_1";
  const std::pair<std::string, std::vector<std::string_view>> expected[] = {
      {"/api/history/v1/task?" + session + "&task_id=" + Hex(kTaskId), {kTaskSecret}},
      {"/api/history/v1/actor?" + session + "&actor_id=" + Hex(kActorId), {kActorSecret}},
      {"/api/history/v1/job?" + session + "&job_id=" + Hex(kJobId),
       {kJobEnvSecret, kMetadataSecret}},
      {"/api/v0/tasks?detail=true", {kTaskSecret}},
  };
  for (const auto& [target, secrets] : expected) {
    const auto [status, body] = Get(target);
    ASSERT_EQ(status, 200) << target;
    for (std::string_view secret : secrets) {
      EXPECT_NE(body.find(secret), std::string::npos) << target << " lacks " << secret;
    }
  }
}

}  // namespace
}  // namespace rayagg::history
