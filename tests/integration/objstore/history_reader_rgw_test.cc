// The sink's objects read back by an independent reader written from the
// reference text (tests/integration/objstore/history_reader.py: its own key
// patterns, botocore listing path style against RGW, gzip/JSONL decoding,
// §3.4 folding, manifest accounting): it must see every task, job, actor and
// node that was sent, and the manifests must account for every event.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <stdio.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <set>

#include "buffer/event_log.h"
#include "common/real_clock.h"
#include "objsink/object_sink.h"
#include "objstore/s3_object_store.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/condition_wait.h"
#include "support/io_thread.h"
#include "support/rgw_server.h"
#include "support/run_coroutine.h"

#ifndef RAYAGG_SOURCE_DIR
#error "RAYAGG_SOURCE_DIR must name the source tree"
#endif

namespace rayagg {
namespace {

using namespace std::chrono_literals;
using ray::rpc::events::RayEvent;

constexpr char kSession[] = "session_2026-03-04_05-06-07_123456_99";

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// Runs `command`, returns its stdout and exit status.
std::pair<std::string, int> RunCommand(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  char buffer[4096];
  size_t read = 0;
  while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, read);
  const int status = pclose(pipe);
  return {output, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

class HistoryReaderRgwTest : public test::RgwTest {};

TEST_F(HistoryReaderRgwTest, ItsPatternsParseTheReferenceFixture) {
  const auto [output, status] =
      RunCommand(std::string("python3 ") + RAYAGG_SOURCE_DIR +
                 "/tests/integration/objstore/history_reader.py --self-test");
  ASSERT_EQ(status, 0) << output;
  EXPECT_EQ(nlohmann::json::parse(output)["self_test"], "ok");
}

TEST_F(HistoryReaderRgwTest, SeesEveryTaskJobActorAndNodeAndEveryEventIsAccountedFor) {
  const std::string bucket = test::RgwServer::UniqueBucket();
  RealClock clock;
  auto logger =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  asio::io_context admin_io;
  auto admin =
      S3ObjectStore::Make(admin_io.get_executor(), rgw().StoreConfig(bucket), *logger, clock);
  ASSERT_TRUE(admin.ok()) << admin.status();
  ASSERT_TRUE(test::RunCoroutine(admin_io, (*admin)->CreateBucket()).ok());

  // What is sent: 3 nodes, 2 jobs, 4 actors, 30 tasks (definition and
  // lifecycle each, 5 of them actor tasks), spread over the nodes.
  std::vector<RayEvent> events;
  std::set<std::string> nodes, jobs, actors, tasks;
  auto base = [&](RayEvent::EventType type, int n, std::string node) {
    RayEvent& event = events.emplace_back();
    event.set_event_id("evt-" + std::to_string(events.size()));
    event.set_event_type(type);
    event.set_session_name(kSession);
    event.set_node_id(std::move(node));
    event.mutable_timestamp()->set_seconds(1772600000 + n);
    return &event;
  };
  const std::vector<std::string> node_ids = {std::string(28, '\x11'), std::string(28, '\x22'),
                                             std::string(28, '\x33')};
  for (const std::string& node : node_ids) {
    base(RayEvent::NODE_DEFINITION_EVENT, 0, node)
        ->mutable_node_definition_event()
        ->set_node_id(node);
    nodes.insert(Hex(node));
  }
  const std::vector<std::string> job_ids = {std::string("\x01\x00\x00\x00", 4),
                                            std::string("\x02\x00\x00\x00", 4)};
  for (const std::string& job : job_ids) {
    base(RayEvent::DRIVER_JOB_DEFINITION_EVENT, 1, node_ids[0])
        ->mutable_driver_job_definition_event()
        ->set_job_id(job);
    jobs.insert(Hex(job));
  }
  for (int a = 0; a < 4; ++a) {
    const std::string actor = std::string(16, static_cast<char>(0x40 + a));
    auto* definition = base(RayEvent::ACTOR_DEFINITION_EVENT, 2, node_ids[a % 3])
                           ->mutable_actor_definition_event();
    definition->set_actor_id(actor);
    definition->set_job_id(job_ids[a % 2]);
    actors.insert(Hex(actor));
  }
  for (int t = 0; t < 30; ++t) {
    const std::string task = std::string(24, static_cast<char>(0x60 + t));
    const std::string& node = node_ids[t % 3];
    const std::string& job = job_ids[t % 2];
    if (t < 5) {
      auto* definition = base(RayEvent::ACTOR_TASK_DEFINITION_EVENT, 3 + t, node)
                             ->mutable_actor_task_definition_event();
      definition->set_task_id(task);
      definition->set_job_id(job);
    } else {
      auto* definition =
          base(RayEvent::TASK_DEFINITION_EVENT, 3 + t, node)->mutable_task_definition_event();
      definition->set_task_id(task);
      definition->set_job_id(job);
    }
    auto* lifecycle =
        base(RayEvent::TASK_LIFECYCLE_EVENT, 40 + t, node)->mutable_task_lifecycle_event();
    lifecycle->set_task_id(task);
    lifecycle->set_job_id(job);
    auto* transition = lifecycle->add_state_transitions();
    transition->set_state(ray::rpc::FINISHED);
    transition->mutable_timestamp()->set_seconds(1772600100 + t);
    tasks.insert(Hex(task) + ":0");
  }

  {
    EventLog log(EventLog::Limits{100000, 1 << 30});
    asio::io_context io;
    auto strand = asio::make_strand(io);
    auto store = S3ObjectStore::Make(strand, rgw().StoreConfig(bucket, "root"), *logger, clock);
    ASSERT_TRUE(store.ok());
    SinkConfig config;
    config.name = "history";
    config.event_types = EventTypeFilter::All();
    config.object.max_age = 100ms;
    ObjectSink sink(strand, config,
                    {.kind = kuberay::ClusterKind::kRayCluster,
                     .namespace_name = "default",
                     .name = "raycluster-history"},
                    log, *std::move(store), MakeFastJsonEncoder({}), *logger, clock);
    sink.Start();
    test::IoThread io_thread(io);
    std::vector<std::string> payloads;
    std::vector<IncomingEvent> incoming;
    for (const RayEvent& event : events) payloads.push_back(event.SerializeAsString());
    for (size_t i = 0; i < payloads.size(); ++i) {
      incoming.push_back(
          IncomingEvent{payloads[i], events[i].event_type(), HashEventId(payloads[i]), 0});
    }
    ASSERT_TRUE(log.Append(incoming).ok());
    ASSERT_TRUE(test::WaitFor([&] { return sink.counters().sent_events.load() == events.size(); }))
        << sink.counters().sent_events.load() << " of " << events.size();
    sink.Drain(clock.Now());
    ASSERT_TRUE(sink.WaitFinished(60s));
  }

  const std::string command = "AWS_ACCESS_KEY_ID='" + rgw().access_key() +
                              "' AWS_SECRET_ACCESS_KEY='" + rgw().secret_key() + "' python3 " +
                              RAYAGG_SOURCE_DIR +
                              "/tests/integration/objstore/history_reader.py --endpoint " +
                              rgw().endpoint() + " --bucket " + bucket + " --prefix root";
  const auto [output, status] = RunCommand(command);
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json seen = nlohmann::json::parse(output);
  EXPECT_EQ(seen["unparsed"], nlohmann::json::array());
  EXPECT_EQ(seen["markers"], nlohmann::json::array({kSession}));
  EXPECT_EQ(seen["sessions"], nlohmann::json::array({kSession}));
  EXPECT_EQ(seen["events"].get<size_t>(), events.size());
  EXPECT_EQ(seen["manifest_events"].get<size_t>(), events.size());
  EXPECT_EQ(seen["tasks"].get<std::set<std::string>>(), tasks);
  EXPECT_EQ(seen["tasks_without_definition"], nlohmann::json::array());
  EXPECT_EQ(seen["jobs"].get<std::set<std::string>>(), jobs);
  EXPECT_EQ(seen["actors"].get<std::set<std::string>>(), actors);
  EXPECT_EQ(seen["nodes"].get<std::set<std::string>>(), nodes);
  ASSERT_EQ(seen["writers"].size(), 1u);
  for (const auto& [writer, summary] : seen["writers"].items()) {
    EXPECT_EQ(summary["events"].get<size_t>(), events.size()) << writer;
    EXPECT_EQ(summary["gaps"].get<size_t>(), 0u) << writer;
    EXPECT_TRUE(summary["complete"].get<bool>()) << writer;
  }
}

}  // namespace
}  // namespace rayagg
