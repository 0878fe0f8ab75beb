// The object-store sink against a real Ceph RGW (started by the tests; a
// test that cannot start it fails): gzip objects with their manifests round
// trip through S3; an object of 16 MiB or more goes up in parts; a wrong secret, then the right one
// in the credentials file, loses nothing; the gateway killed under load and restarted loses
// nothing; HTTPS with the test CA in virtual-hosted style through s3.connect_address. Real time
// (RGW checks the signing time), waits on conditions.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "absl/strings/escaping.h"
#include "buffer/event_log.h"
#include "common/real_clock.h"
#include "objsink/object_sink.h"
#include "objstore/rules/kuberay_layout.h"
#include "objstore/s3_object_store.h"
#include "support/condition_wait.h"
#include "support/gunzip.h"
#include "support/io_thread.h"
#include "support/object_events.h"
#include "support/rgw_server.h"
#include "support/run_coroutine.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using namespace std::chrono_literals;

const kuberay::ClusterIdentity kCluster{.kind = kuberay::ClusterKind::kRayJob,
                                        .namespace_name = "ray-system",
                                        .name = "job-cluster",
                                        .owner = "nightly"};

class ObjectSinkRgwTest : public test::RgwTest {
 protected:
  void SetUp() override {
    RgwTest::SetUp();
    if (HasFatalFailure()) return;
    bucket_ = test::RgwServer::UniqueBucket();
    auto admin =
        S3ObjectStore::Make(reader_io_.get_executor(), rgw().StoreConfig(bucket_), logger_, clock_);
    ASSERT_TRUE(admin.ok()) << admin.status();
    reader_ = *std::move(admin);
    ASSERT_TRUE(test::RunCoroutine(reader_io_, reader_->CreateBucket()).ok());
  }

  void TearDown() override {
    if (sink_) {
      sink_->Drain(clock_.Now());
      sink_->WaitFinished(120s);
    }
  }

  static SinkConfig Config() {
    SinkConfig config;
    config.name = "history";
    config.event_types = EventTypeFilter::All();
    config.object.max_age = 100ms;
    config.retry.initial_backoff = 10ms;
    config.retry.max_backoff = 200ms;
    return config;
  }

  void Start(const ObjectStoreConfig& store_config, SinkConfig config = Config()) {
    auto strand = asio::make_strand(io_);
    auto store = S3ObjectStore::Make(strand, store_config, logger_, clock_);
    ASSERT_TRUE(store.ok()) << store.status();
    sink_ =
        std::make_unique<ObjectSink>(strand, std::move(config), kCluster, log_, *std::move(store),
                                     MakeFastJsonEncoder({}), logger_, clock_);
    sink_->Start();
    io_thread_.emplace(io_);
  }

  void Append(int first, int count, const std::string& session = test::kSession) {
    std::vector<std::string> payloads;
    std::vector<IncomingEvent> events;
    for (int i = first; i < first + count; ++i) {
      payloads.push_back(test::ObjectTestEvent(i, session, "\x01\x02", i % 3 == 0 ? "" : "\x0a")
                             .SerializeAsString());
    }
    for (const auto& payload : payloads) {
      events.push_back(IncomingEvent{payload, 0, HashEventId(payload), 0});
    }
    ASSERT_TRUE(log_.Append(events).ok());
    for (int i = first; i < first + count; ++i) sent_ids_.insert("e" + std::to_string(i));
  }

  std::vector<std::string> Keys(const std::string& prefix = "") {
    std::vector<std::string> keys;
    ListObjectsRequest request{.prefix = prefix};
    while (true) {
      auto page = test::RunCoroutine(reader_io_, reader_->List(request));
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok()) break;
      for (const ObjectInfo& object : page->objects) keys.push_back(object.key);
      if (page->next_continuation_token.empty()) break;
      request.continuation_token = page->next_continuation_token;
    }
    return keys;
  }

  // Every event id in the bucket's event objects, checking each object's
  // name, gzip body and manifest on the way.
  // `root` is the sink's URL prefix with a trailing '/', or "".
  std::multiset<std::string> StoredIds(const std::string& root = "") {
    std::multiset<std::string> ids;
    for (const std::string& key : Keys(root + "cluster-history/")) {
      const auto parts = kuberay::ParseEventObjectKey(key.substr(root.size()));
      EXPECT_TRUE(parts.has_value()) << key;
      auto object = test::RunCoroutine(reader_io_, reader_->Get({.key = key}));
      EXPECT_TRUE(object.ok()) << key;
      if (!object.ok()) continue;
      const std::optional<std::string> text = test::Gunzip(object->body);
      EXPECT_TRUE(text.has_value()) << key;
      std::istringstream lines(text.value_or(""));
      size_t count = 0;
      for (std::string line; std::getline(lines, line); ++count) {
        std::string id;
        EXPECT_TRUE(
            absl::Base64Unescape(nlohmann::json::parse(line)["eventId"].get<std::string>(), &id));
        ids.insert(id);
      }
      std::map<std::string, std::string> manifest(object->metadata.begin(), object->metadata.end());
      EXPECT_EQ(manifest["rayagg-events"], std::to_string(count)) << key;
      EXPECT_EQ(manifest["rayagg-writer"], sink_->writer()) << key;
    }
    return ids;
  }

  uint64_t Sent() const { return sink_->counters().sent_events.load(); }
  uint64_t Released() const { return log_.ReleasedPosition(sink_->cursor()); }

  RealClock clock_;
  std::shared_ptr<spdlog::logger> logger_holder_ =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  spdlog::logger& logger_ = *logger_holder_;
  EventLog log_{EventLog::Limits{1'000'000, 1ull << 30}};
  asio::io_context io_;
  asio::io_context reader_io_;
  std::unique_ptr<S3ObjectStore> reader_;
  std::unique_ptr<ObjectSink> sink_;
  std::optional<test::IoThread> io_thread_;
  std::string bucket_;
  std::multiset<std::string> sent_ids_;
};

TEST_F(ObjectSinkRgwTest, GzipObjectsWithManifestsRoundTrip) {
  Start(rgw().StoreConfig(bucket_, "history"));
  Append(0, 60);
  Append(60, 30, "session_2026-01-02_00-00-00_000000_7");
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 90; })) << Sent();
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 90; }));
  EXPECT_EQ(
      Keys("history/cluster-metadata/"),
      (std::vector<std::string>{"history/cluster-metadata/rayjob/ray-system_nightly_job-cluster/"
                                "session_2026-01-01_00-00-00_000000_1",
                                "history/cluster-metadata/rayjob/ray-system_nightly_job-cluster/"
                                "session_2026-01-02_00-00-00_000000_7"}));
  EXPECT_EQ(StoredIds("history/"), sent_ids_);
}

// An object of 16 MiB or more goes up in parts (s3.multipart_threshold,
// 8 MiB parts): RGW reports a multipart ETag ("<md5>-<parts>"), and the
// object reads back whole, every event in it once, with its manifest.
TEST_F(ObjectSinkRgwTest, AnObjectOf16MiBOrMoreIsUploadedInPartsAndReadsBackWhole) {
  SinkConfig config = Config();
  config.object.gzip = false;  // the test events compress far below 16 MiB
  config.object.max_age = 1h;  // cut by the drain, as one object
  config.object.max_open_bytes = 256ull << 20;
  Start(rgw().StoreConfig(bucket_), config);
  // 320 events with a 64 KiB runtime env each: about 20 MiB of JSON Lines,
  // all in one (session, node, job) object.
  const std::string runtime_env(64 * 1024, 'x');
  std::vector<std::string> payloads;
  for (int i = 0; i < 320; ++i) {
    ray::rpc::events::RayEvent event = test::ObjectTestEvent(i);
    event.mutable_task_definition_event()->set_serialized_runtime_env(runtime_env);
    payloads.push_back(event.SerializeAsString());
  }
  std::vector<IncomingEvent> events;
  for (const auto& payload : payloads) {
    events.push_back(IncomingEvent{payload, 0, HashEventId(payload), 0});
  }
  ASSERT_TRUE(log_.Append(events).ok());
  ASSERT_TRUE(
      test::WaitFor([&] { return sink_->object_counters().held_bytes.load() >= 16u << 20; }));
  sink_->Drain(clock_.Now() + 300s);
  ASSERT_TRUE(sink_->WaitFinished(300s));
  EXPECT_EQ(Sent(), 320u);
  EXPECT_EQ(sink_->drops().Total(), 0u);

  std::vector<ObjectInfo> objects;
  auto page = test::RunCoroutine(reader_io_, reader_->List({.prefix = "cluster-history/"}));
  ASSERT_TRUE(page.ok()) << page.status();
  objects = page->objects;
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_GE(objects[0].size, 16u << 20);
  // 20 MiB in 8 MiB parts: three.
  EXPECT_TRUE(objects[0].etag.ends_with("-3")) << objects[0].etag;
  auto object =
      test::RunCoroutine(reader_io_, reader_->Get({.key = objects[0].key, .max_bytes = 64u << 20}));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->body.size(), objects[0].size);
  std::istringstream lines(object->body);
  std::set<std::string> ids;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    EXPECT_EQ(event["taskDefinitionEvent"]["serializedRuntimeEnv"].get<std::string>().size(),
              runtime_env.size());
    std::string id;
    EXPECT_TRUE(absl::Base64Unescape(event["eventId"].get<std::string>(), &id));
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 320u);
  std::map<std::string, std::string> manifest(object->metadata.begin(), object->metadata.end());
  EXPECT_EQ(manifest["rayagg-events"], "320");
  EXPECT_EQ(manifest["rayagg-seq-first"], "1");
  EXPECT_EQ(manifest["rayagg-seq-last"], "320");
}

TEST_F(ObjectSinkRgwTest, AWrongSecretThenTheRightOneInTheFileLosesNothing) {
  test::TempDir files;
  ObjectStoreConfig config = rgw().StoreConfig(bucket_);
  config.s3.access_key_id_file = files.Write("id", rgw().access_key());
  config.s3.secret_access_key_file = files.Write("secret", "not-the-secret");
  Start(config);
  Append(0, 40);
  ASSERT_TRUE(test::WaitFor([&] {
    const auto failures = sink_->object_counters().Failures();
    auto it = failures.find("SignatureDoesNotMatch");
    return it != failures.end() && it->second >= 2;
  }));
  EXPECT_EQ(Sent(), 0u);
  EXPECT_EQ(Released(), 0u);
  EXPECT_EQ(sink_->drops().Total(), 0u);
  files.Replace("secret", rgw().secret_key());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 40; })) << Sent();
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 40; }));
  EXPECT_EQ(StoredIds(), sent_ids_);
}

TEST_F(ObjectSinkRgwTest, TheGatewayKilledUnderLoadThenRestartedLosesNothing) {
  Start(rgw().StoreConfig(bucket_));
  int next = 0;
  Append(next, 100);
  next += 100;
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 100; }));
  rgw().KillGateway();
  const uint64_t failed_before = sink_->counters().failed_attempts.load();
  // Load while it is down: events keep arriving and objects keep being cut;
  // the uploads fail and are retried.
  for (int round = 0; round < 10; ++round) {
    const uint64_t failed = sink_->counters().failed_attempts.load();
    Append(next, 50);
    next += 50;
    ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() > failed; }));
  }
  EXPECT_GE(sink_->counters().failed_attempts.load(), failed_before + 10);
  EXPECT_LT(Released(), static_cast<uint64_t>(next));
  rgw().RestartGateway();
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == static_cast<uint64_t>(next); }, 120s))
      << Sent() << " of " << next;
  EXPECT_TRUE(test::WaitFor([&] { return Released() == static_cast<uint64_t>(next); }));
  EXPECT_EQ(sink_->drops().Total(), 0u);
  const std::multiset<std::string> stored = StoredIds();
  EXPECT_EQ(std::set<std::string>(stored.begin(), stored.end()),
            std::set<std::string>(sent_ids_.begin(), sent_ids_.end()));
}

// The sink over HTTPS with the test CA, virtual-hosted style
// (<bucket>.s3.localhost, which resolves nowhere: s3.connect_address sends
// the connection to the gateway while Host and the signature keep the
// name), as against AWS or OSS: every event arrives once, read back path
// style over plain HTTP.
TEST_F(ObjectSinkRgwTest, OverHttpsInVirtualHostedStyleThroughConnectAddress) {
  ObjectStoreConfig store = rgw().StoreConfig(bucket_, "tls");
  store.s3.addressing = S3Config::Addressing::kVirtualHosted;
  store.s3.endpoint = "https://s3.localhost:" + std::to_string(rgw().tls_port());
  store.s3.connect_address = "127.0.0.1:" + std::to_string(rgw().tls_port());
  store.tls.ca_file = rgw().ca_file();
  Start(store);
  Append(0, 40);
  Append(40, 20, "session_2026-01-02_00-00-00_000000_7");
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 60; })) << Sent();
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 60; }));
  EXPECT_EQ(Keys("tls/cluster-metadata/").size(), 2u);
  EXPECT_EQ(StoredIds("tls/"), sent_ids_);
  EXPECT_EQ(sink_->drops().Total(), 0u);
}

}  // namespace
}  // namespace rayagg
