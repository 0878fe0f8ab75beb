#include "integration/history/history_pipeline.h"

#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "support/condition_wait.h"
#include "support/raw_http_client.h"

namespace rayagg::test::history_e2e {
namespace {

using nlohmann::json;
using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;

// Non-zero counts of a by_state object.
std::map<std::string, int64_t> NonZero(const json& by_state) {
  std::map<std::string, int64_t> out;
  if (!by_state.is_object()) return out;
  for (const auto& [state, count] : by_state.items()) {
    if (count.is_number_integer() && count.get<int64_t>() != 0) out[state] = count.get<int64_t>();
  }
  return out;
}

const ScenarioTask* FindTask(const Scenario& scenario, const std::string& id_hex, int attempt) {
  for (const ScenarioTask& task : scenario.tasks) {
    if (Hex(task.task_id) == id_hex && task.attempt == attempt) return &task;
  }
  return nullptr;
}

// The value of an unlabelled sample on a Prometheus page, if there.
std::optional<double> Sample(const std::string& page, const std::string& name) {
  std::istringstream lines(page);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) == 0) {
      try {
        return std::stod(line.substr(name.size() + 1));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

AssertionResult HistoryPipeline::StartDaemon(const std::string& sink_yaml) {
  const std::string config = dir_.Write("daemon.yaml",
                                        "sinks:\n"
                                        "  - name: history\n" +
                                            sink_yaml +
                                            "    cluster: {namespace: e2e, name: history-e2e}\n"
                                            "    object: {max_age: 200ms}\n");
  daemon_ = std::make_unique<Subprocess>(
      RAYAGG_BINARY,
      std::vector<std::string>{"--config", config, "--grpc-port", "0", "--port-file",
                               dir_.Path("grpc.port"), "--http-port", "0", "--http-port-file",
                               dir_.Path("http.port")},
      dir_.Path("daemon.out"), dir_.Path("daemon.err"));
  const std::optional<int> grpc =
      WaitForPortFile(*daemon_, dir_.Path("grpc.port"), kPipelineTimeout);
  if (!grpc) return AssertionFailure() << "the daemon wrote no gRPC port file";
  const std::optional<int> http =
      WaitForPortFile(*daemon_, dir_.Path("http.port"), kPipelineTimeout);
  if (!http) return AssertionFailure() << "the daemon wrote no HTTP port file";
  grpc_port_ = *grpc;
  http_port_ = *http;
  return AssertionSuccess();
}

AssertionResult HistoryPipeline::Send(const Scenario& scenario) {
  auto stub = ray::rpc::events::EventAggregatorService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(grpc_port_), grpc::InsecureChannelCredentials()));
  // In a few requests, as Ray's publisher batches them.
  for (size_t begin = 0; begin < scenario.task_events.size(); begin += 10) {
    const size_t end = std::min(begin + 10, scenario.task_events.size());
    grpc::ClientContext context;
    context.set_deadline(RpcDeadlineIn(kPipelineTimeout));
    ray::rpc::events::AddEventsReply reply;
    AddEventsRequest request =
        RequestOf(std::span<const RayEvent>(scenario.task_events).subspan(begin, end - begin));
    if (begin == 0) AddDroppedTaskAttempts(request, Scenario::kSenderDroppedTaskAttempts);
    const grpc::Status status = stub->AddEvents(&context, request, &reply);
    if (!status.ok()) return AssertionFailure() << "AddEvents: " << status.error_message();
  }
  std::unique_ptr<EventJsonEncoder> encoder = MakeFastJsonEncoder({});
  std::string body = "[";
  for (const RayEvent& event : scenario.cluster_events) {
    if (body.size() > 1) body += ",";
    if (!encoder->AppendEvent(event.SerializeAsString(), body).ok()) {
      return AssertionFailure() << "cannot encode an event as JSON";
    }
  }
  body += "]";
  RawHttpClient client(static_cast<uint16_t>(http_port_), kPipelineTimeout);
  client.Send(
      "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  const auto response = client.Read();
  if (response.result_int() / 100 != 2) {
    return AssertionFailure() << "HTTP ingest answered " << response.result_int() << ": "
                              << response.body();
  }
  return AssertionSuccess();
}

AssertionResult HistoryPipeline::StopDaemon() {
  if (!daemon_->Signal(SIGTERM)) return AssertionFailure() << "cannot signal the daemon";
  const std::optional<int> status = daemon_->WaitForExit(kPipelineTimeout);
  if (!ExitedWith(status, 0)) return AssertionFailure() << "daemon " << DescribeStatus(status);
  return AssertionSuccess();
}

AssertionResult HistoryPipeline::StartHistory(const std::string& store_url,
                                              const std::string& config_yaml) {
  // Files of their own per run: a port file left by the previous run must
  // not be taken for this one's.
  const std::string run = "history-" + std::to_string(++history_runs_);
  const std::string config = dir_.Write(run + ".yaml", config_yaml);
  history_ = std::make_unique<Subprocess>(
      RAYAGG_HISTORY_BINARY,
      std::vector<std::string>{"--store", store_url, "--index-dir", dir_.Path("index"),
                               "--http-port", "0", "--port-file", dir_.Path(run + ".port"),
                               "--ops-port", "0", "--ops-port-file", dir_.Path(run + ".ops-port"),
                               "--config", config},
      dir_.Path(run + ".out"), dir_.Path(run + ".err"));
  const std::optional<int> port =
      WaitForPortFile(*history_, dir_.Path(run + ".port"), kPipelineTimeout);
  if (!port) {
    return AssertionFailure() << "ray-task-history wrote no port file; "
                              << DescribeStatus(
                                     history_->WaitForExit(std::chrono::milliseconds(0)));
  }
  history_port_ = *port;
  // Written before the API's port file.
  const std::optional<int> ops_port =
      WaitForPortFile(*history_, dir_.Path(run + ".ops-port"), kPipelineTimeout);
  if (!ops_port) return AssertionFailure() << "ray-task-history wrote no ops port file";
  history_ops_port_ = *ops_port;
  return AssertionSuccess();
}

AssertionResult HistoryPipeline::WaitUntilCaughtUp() {
  std::string page;
  const bool caught_up = WaitFor(
      [&] {
        page = GetOpsText("/metrics");
        const std::optional<double> lag = Sample(page, "rayhist_lag_seconds");
        return lag.has_value() && *lag >= 0;
      },
      kPipelineTimeout);
  if (!caught_up) return AssertionFailure() << "the indexer never caught up:\n" << page;
  return AssertionSuccess();
}

AssertionResult HistoryPipeline::StopHistory() {
  if (!history_->Signal(SIGTERM)) return AssertionFailure() << "cannot signal ray-task-history";
  const std::optional<int> status = history_->WaitForExit(kPipelineTimeout);
  if (!ExitedWith(status, 0)) {
    return AssertionFailure() << "ray-task-history " << DescribeStatus(status);
  }
  return AssertionSuccess();
}

std::string HistoryPipeline::GetText(const std::string& target) {
  RawHttpClient client(static_cast<uint16_t>(history_port_), kPipelineTimeout);
  client.Send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return client.Read().body();
}

std::string HistoryPipeline::GetOpsText(const std::string& target) {
  RawHttpClient client(static_cast<uint16_t>(history_ops_port_), kPipelineTimeout);
  client.Send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return client.Read().body();
}

std::pair<int, json> HistoryPipeline::Get(const std::string& target) {
  RawHttpClient client(static_cast<uint16_t>(history_port_), kPipelineTimeout);
  client.Send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const auto response = client.Read();
  return {response.result_int(), json::parse(response.body(), nullptr, false)};
}

std::string HistoryPipeline::Logs() const {
  std::string logs = "daemon stderr:\n" + ReadWholeFile(dir_.Path("daemon.err"));
  for (int run = 1; run <= history_runs_; ++run) {
    const std::string name = "history-" + std::to_string(run) + ".err";
    logs += "\nray-task-history run " + std::to_string(run) + " stderr:\n" +
            ReadWholeFile(dir_.Path(name));
  }
  return logs;
}

void ExpectAnswersMatch(HistoryPipeline& pipeline, const Scenario& scenario) {
  const std::string session = std::string("session=") + kSessionName;
  const std::string job_hex = Hex(scenario.job_id);

  // Sessions: ours, with its marker, its task attempts and no unreadable input.
  {
    auto [status, body] = pipeline.Get("/api/history/v1/sessions");
    ASSERT_EQ(status, 200) << body.dump();
    ASSERT_EQ(body["sessions"].size(), 1u) << body.dump();
    const json& s = body["sessions"][0];
    EXPECT_EQ(s["session_name"], kSessionName);
    EXPECT_EQ(s["namespace"], "e2e");
    EXPECT_EQ(s["cluster_name"], "history-e2e");
    EXPECT_EQ(s["has_marker"], true);
    EXPECT_EQ(s["bad_lines"], 0);
    EXPECT_EQ(s["bad_objects"], 0);
    EXPECT_GT(s["objects"].get<int64_t>(), 0);
    // The scenario counts attempts; the sessions list counts tasks and
    // gives the attempts beside them.
    EXPECT_EQ(s["tasks"]["attempts"].get<size_t>(), scenario.tasks.size());
    EXPECT_LT(s["tasks"]["total"].get<size_t>(), scenario.tasks.size());
    EXPECT_EQ(s["first_event_time_ms"].get<int64_t>(), kT0Ns / 1'000'000);
    // What the sender reported lost, carried by a manifest; and the
    // manifests prove the objects complete: one writer, no gap.
    EXPECT_EQ(s["lost_before_export"].get<size_t>(), Scenario::kSenderDroppedTaskAttempts);
    EXPECT_EQ(s["manifests"]["writers"], 1) << s.dump();
    EXPECT_EQ(s["manifests"]["objects_without_manifest"], 0) << s.dump();
    EXPECT_EQ(s["manifests"]["gaps"], 0) << s.dump();
    EXPECT_EQ(s["manifests"]["missing_events"], 0) << s.dump();
  }
  // Counts by state, the session's and the job's (all tasks are the job's).
  for (const std::string& filter : {std::string(), "&job_id=" + job_hex}) {
    auto [status, body] = pipeline.Get("/api/history/v1/counts?unit=attempts&" + session + filter);
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["total"].get<size_t>(), scenario.tasks.size()) << filter;
    EXPECT_EQ(NonZero(body["by_state"]), scenario.CountsByState()) << filter;
  }
  // Group-by function: counts by state and the running-time distribution.
  {
    auto [status, body] =
        pipeline.Get("/api/history/v1/groups?unit=attempts&by=function&" + session);
    ASSERT_EQ(status, 200) << body.dump();
    std::map<std::string, std::map<std::string, int64_t>> seen;
    for (const json& group : body["groups"]) {
      seen[group["key"].get<std::string>()] = NonZero(group["by_state"]);
      EXPECT_EQ(group["total"].get<int64_t>(), group["durations"]["total"]["count"].get<int64_t>() +
                                                   (group["key"] == "stuck" ? 1 : 0))
          << group.dump();
    }
    EXPECT_EQ(seen, scenario.CountsByFunction());
    for (const json& group : body["groups"]) {
      if (group["key"] != "prep") continue;
      // prep's running times are 2000 + 250 n ms, n = 0..5: the largest is 3250 ms.
      EXPECT_DOUBLE_EQ(group["durations"]["running"]["max_ms"].get<double>(), 3250.0);
      EXPECT_EQ(group["durations"]["running"]["count"], 6);
    }
  }
  // Group-by error type: every failure under its rayErrorInfo.errorType.
  {
    auto [status, body] =
        pipeline.Get("/api/history/v1/groups?unit=attempts&by=error_type&" + session);
    ASSERT_EQ(status, 200) << body.dump();
    std::map<std::string, int64_t> seen;
    for (const json& group : body["groups"]) {
      const std::string key = group["key"].get<std::string>();
      if (scenario.CountsByErrorType().contains(key)) seen[key] = group["total"].get<int64_t>();
    }
    EXPECT_EQ(seen, scenario.CountsByErrorType()) << body.dump();
  }
  // The task list: every attempt once over pages of 5, sorted by start time;
  // each row's state, function, error type and durations as sent.
  {
    std::set<std::pair<std::string, int>> listed;
    std::string cursor;
    int64_t previous_start = -1;
    for (int page = 0; page < 10; ++page) {
      auto [status, body] = pipeline.Get("/api/history/v1/tasks?unit=attempts&" + session +
                                         "&sort=start_time&order=asc&limit=5" +
                                         (cursor.empty() ? "" : "&cursor=" + cursor));
      ASSERT_EQ(status, 200) << body.dump();
      for (const json& row : body["tasks"]) {
        const std::string id = row["task_id"].get<std::string>();
        const int attempt = row["attempt"].get<int>();
        EXPECT_TRUE(listed.emplace(id, attempt).second) << "listed twice: " << row.dump();
        const ScenarioTask* task = FindTask(scenario, id, attempt);
        ASSERT_NE(task, nullptr) << row.dump();
        EXPECT_EQ(row["state"], Scenario::ReportedState(*task)) << row.dump();
        EXPECT_EQ(row["function"], task->function);
        EXPECT_EQ(row["job_id"], job_hex);
        EXPECT_EQ(row["node_id"], Hex(scenario.node_id));
        EXPECT_EQ(row["worker_pid"], task->worker_pid);
        EXPECT_EQ(row["creation_time_ms"].get<int64_t>(), kT0Ns / 1'000'000 + task->created_ms);
        EXPECT_DOUBLE_EQ(row["pending_ms"].get<double>(), static_cast<double>(task->pending_ms));
        if (task->end_state != ray::rpc::RUNNING) {
          EXPECT_DOUBLE_EQ(row["running_ms"].get<double>(), static_cast<double>(task->running_ms));
          EXPECT_DOUBLE_EQ(row["total_ms"].get<double>(),
                           static_cast<double>(task->pending_ms + task->running_ms));
        }
        if (task->error_type >= 0) {
          EXPECT_EQ(row["error_type"],
                    ray::rpc::ErrorType_Name(static_cast<ray::rpc::ErrorType>(task->error_type)));
        }
        const int64_t start = row["start_time_ms"].get<int64_t>();
        EXPECT_GE(start, previous_start) << "not sorted by start time";
        previous_start = start;
      }
      if (body["next_cursor"].is_null()) break;
      cursor = body["next_cursor"].get<std::string>();
    }
    EXPECT_EQ(listed.size(), scenario.tasks.size());
  }
  // A filtered list: the failed attempts with a Python exception.
  {
    auto [status, body] = pipeline.Get("/api/history/v1/tasks?unit=attempts&" + session +
                                       "&state=FAILED&exception=ValueError");
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["tasks"].size(), 2u) << body.dump();
    for (const json& row : body["tasks"]) EXPECT_EQ(row["function"], "train");
  }
  // One task: its definition, every transition with its time, the error.
  {
    const ScenarioTask& failed = scenario.tasks[8];  // train, n = 2: FAILED
    ASSERT_EQ(failed.end_state, ray::rpc::FAILED);
    auto [status, body] = pipeline.Get("/api/history/v1/task?" + session +
                                       "&task_id=" + Hex(failed.task_id) + "&attempt=0");
    ASSERT_EQ(status, 200) << body.dump();
    const std::string text = body.dump();
    EXPECT_NE(text.find("\"train\""), std::string::npos) << text;
    ASSERT_TRUE(body["transitions"].is_array()) << text;
    std::vector<std::pair<std::string, int64_t>> transitions;
    for (const json& t : body["transitions"]) {
      transitions.emplace_back(t["state"].get<std::string>(), t["time_ms"].get<int64_t>());
    }
    const int64_t created = kT0Ns / 1'000'000 + failed.created_ms;
    EXPECT_EQ(transitions, (std::vector<std::pair<std::string, int64_t>>{
                               {"PENDING_ARGS_AVAIL", created},
                               {"RUNNING", created + failed.pending_ms},
                               {"FAILED", created + failed.pending_ms + failed.running_ms}}));
    EXPECT_EQ(body["error"]["type"], "TASK_EXECUTION_EXCEPTION") << text;
    EXPECT_EQ(body["error"]["exception"], "ValueError") << text;
    EXPECT_NE(body["error"]["message"].get<std::string>().find("bad learning rate"),
              std::string::npos);
  }
  // The retried task: two attempts, the last FINISHED.
  {
    const ScenarioTask& retried = scenario.tasks[13];
    ASSERT_EQ(retried.attempt, 0);
    auto [status, body] =
        pipeline.Get("/api/history/v1/task?" + session + "&task_id=" + Hex(retried.task_id));
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["attempt"], 1) << body.dump();
    EXPECT_EQ(body["state"], "FINISHED") << body.dump();
  }
  // The job and the actor.
  {
    auto [status, body] = pipeline.Get("/api/history/v1/job?" + session + "&job_id=" + job_hex);
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["tasks"]["attempts"].get<size_t>(), scenario.tasks.size()) << body.dump();
    EXPECT_NE(body.dump().find("python pipeline.py"), std::string::npos) << body.dump();
  }
  {
    auto [status, body] =
        pipeline.Get("/api/history/v1/actor?" + session + "&actor_id=" + Hex(scenario.actor_id));
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["state"], "ALIVE") << body.dump();
    EXPECT_EQ(body["definition"]["class_name"], "Trainer") << body.dump();
  }
  // Ray's State API: every attempt, Ray's states (the reconciled task FAILED).
  const std::string ray_session = std::string("session_name=") + kSessionName;
  {
    auto [status, body] = pipeline.Get("/api/v0/tasks?" + ray_session + "&limit=1000&detail=true");
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["result"], true);
    const json& data = body["data"]["result"];
    EXPECT_EQ(data["total"].get<size_t>(), scenario.tasks.size());
    EXPECT_EQ(data["num_filtered"].get<size_t>(), scenario.tasks.size());
    ASSERT_EQ(data["result"].size(), scenario.tasks.size()) << data.dump();
    for (const json& row : data["result"]) {
      const ScenarioTask* task =
          FindTask(scenario, row["task_id"].get<std::string>(), row["attempt_number"].get<int>());
      ASSERT_NE(task, nullptr) << row.dump();
      EXPECT_EQ(row["state"], Scenario::RayState(*task)) << row.dump();
      EXPECT_EQ(row["func_or_class_name"], task->function);
      EXPECT_EQ(row["type"], "NORMAL_TASK");
      EXPECT_EQ(row["required_resources"], json({{"CPU", 1.0}})) << row.dump();
    }
  }
  {
    auto [status, body] = pipeline.Get("/api/v0/tasks?" + ray_session +
                                       "&filter_keys=func_or_class_name&filter_predicates=%3D"
                                       "&filter_values=fetch&filter_keys=state"
                                       "&filter_predicates=%3D&filter_values=FAILED");
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["data"]["result"]["num_filtered"], 4) << body.dump();
  }
  {
    auto [status, body] = pipeline.Get("/api/v0/tasks/summarize?" + ray_session);
    ASSERT_EQ(status, 200) << body.dump();
    const json& cluster = body["data"]["result"]["result"]["node_id_to_summary"]["cluster"];
    EXPECT_EQ(cluster["total_tasks"].get<size_t>(), scenario.tasks.size()) << body.dump();
    std::map<std::string, std::map<std::string, int64_t>> expected, seen;
    for (const ScenarioTask& task : scenario.tasks) {
      ++expected[task.function][Scenario::RayState(task)];
    }
    for (const auto& [name, entry] : cluster["summary"].items()) {
      EXPECT_EQ(entry["type"], "NORMAL_TASK");
      seen[name] = NonZero(entry["state_counts"]);
    }
    EXPECT_EQ(seen, expected);
  }
  // An export through the real server (its pages run on the export
  // threads): one NDJSON line per attempt. A search and its count route.
  {
    const std::string ndjson =
        pipeline.GetText("/api/history/v1/export?format=ndjson&unit=attempts&" + session);
    EXPECT_EQ(static_cast<size_t>(std::count(ndjson.begin(), ndjson.end(), '\n')),
              scenario.tasks.size());
    size_t prep = 0;
    for (const ScenarioTask& task : scenario.tasks) prep += task.function == "prep" ? 1 : 0;
    auto [status, count] =
        pipeline.Get("/api/history/v1/tasks/count?unit=attempts&q=PREP&" + session);
    ASSERT_EQ(status, 200) << count.dump();
    EXPECT_GE(count["total"].get<size_t>(), prep);
    auto [s2, list] =
        pipeline.Get("/api/history/v1/tasks?unit=attempts&limit=10000&q=PREP&" + session);
    ASSERT_EQ(s2, 200) << list.dump();
    EXPECT_EQ(list["tasks"].size(), count["total"].get<size_t>());
  }
}

}  // namespace rayagg::test::history_e2e
