// The daemon with its disk spool on (spool.dir), over real gRPC and HTTP
// ingest and a real loopback sink: a request is answered only once its
// events are in the segment files, the sinks still get everything, a clean
// stop leaves the sinks' positions in the ledger, a second daemon on the
// directory is refused, /readyz names the spool's state, and an object-store
// sink keeps its writer across a restart so its manifests show no gap.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/real_clock.h"
#include "http/http_client.h"
#include "objsink/object_sink.h"
#include "spool/ledger.h"
#include "spool/spool.h"
#include "store_manifests.h"
#include "support/daemon_fixture.h"
#include "support/metrics_scrape.h"
#include "support/object_events.h"
#include "support/prometheus_text.h"
#include "support/run_coroutine.h"
#include "support/temp_dir.h"

namespace rayagg::test {
namespace {

HttpResult Request(int port, const std::string& path, std::optional<std::string> post_body) {
  asio::io_context io;
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:" + std::to_string(port) + path);
  EXPECT_TRUE(url.ok()) << url.status();
  HttpClient client(io.get_executor(), *url, std::chrono::seconds(10));
  return post_body ? RunCoroutine(io, client.Post(*std::move(post_body), {}))
                   : RunCoroutine(io, client.Get());
}

// Every segment file's bytes, concatenated.
std::string SegmentBytes(const std::filesystem::path& directory) {
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() != ".seg") continue;
    std::ifstream file(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    all += bytes.str();
  }
  return all;
}

size_t Occurrences(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

class SpoolDaemonTest : public DaemonTest {
 protected:
  Config SpoolConfig(SpoolConfig::Sync sync, TestHttpServer* server = nullptr) {
    TestHttpServer& to = server != nullptr ? *server : server_;
    Config config = TestConfig({FastHttpSink(to.Url("/e"), "collector")});
    config.spool.dir = dir_.Path("spool");
    config.spool.max_bytes = 4 << 20;
    config.spool.segment_bytes = 1 << 20;
    config.spool.sync = sync;
    return config;
  }
  TempDir dir_;
};

TEST_F(SpoolDaemonTest, EveryAnsweredRequestIsInTheSegmentFiles) {
  for (const auto sync :
       {SpoolConfig::Sync::kAlways, SpoolConfig::Sync::kInterval, SpoolConfig::Sync::kNever}) {
    SCOPED_TRACE(static_cast<int>(sync));
    std::filesystem::remove_all(dir_.Path("spool"));
    TestHttpServer& server = AddServer();
    Config config = SpoolConfig(sync, &server);
    config.buffer.coalesce = false;
    config.buffer.dedup_window_events = 0;  // the HTTP copies are new events
    config.http_ingest.enabled = true;
    config.http_ingest.port = 0;
    DaemonHarness daemon(config);
    ASSERT_TRUE(daemon.start_status().ok()) << daemon.start_status();
    const std::vector<RayEvent> events = TaskLifecycleEvents(40, "spooled");
    ASSERT_TRUE(daemon.AddEvents(events).ok());
    std::string on_disk = SegmentBytes(dir_.Path("spool"));
    for (const RayEvent& event : events) {
      ASSERT_GE(Occurrences(on_disk, event.event_id()), 1u) << "answered before written";
    }
    ASSERT_TRUE(WaitForElements(server, events.size()));

    // The sink's own JSON of those events, posted back through HTTP ingest.
    std::vector<std::string> bodies;
    for (const auto& request : server.Requests()) bodies.push_back(request.body);
    for (const std::string& body : bodies) {
      const HttpResult posted = Request(daemon.daemon().http_port(), "/v1/events", body);
      ASSERT_FALSE(posted.error) << posted.error.message();
      ASSERT_EQ(posted.response.status, 200u) << posted.response.body;
    }
    on_disk = SegmentBytes(dir_.Path("spool"));
    for (const RayEvent& event : events) {
      ASSERT_GE(Occurrences(on_disk, event.event_id()), 2u) << "HTTP answered before written";
    }
    ASSERT_TRUE(WaitForElements(server, 2 * events.size()));
  }
}

TEST_F(SpoolDaemonTest, ACleanStopLeavesTheSinksPositionsInTheLedger) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(SpoolConfig(SpoolConfig::Sync::kInterval)));
  const std::vector<RayEvent> events = TaskLifecycleEvents(25, "ledger");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));
  const Sink& sink = harness().sink(0);
  ASSERT_NE(harness().daemon().spool(), nullptr);
  const uint64_t end = harness().daemon().spool()->first_sequence() + events.size();
  ASSERT_TRUE(WaitFor([&] {
    return harness().daemon().log().ReleasedPosition(sink.cursor()) == end;
  })) << harness().daemon().log().ReleasedPosition(sink.cursor());
  StopDaemon();

  spool::PosixFileSystem fs;
  RealClock clock;
  auto reopened = spool::Spool::Open(
      fs, clock, spool::SpoolOptions{.directory = dir_.Path("spool"), .max_bytes = 4 << 20},
      "pid 0");
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  const auto& positions = (*reopened)->ledger().positions;
  ASSERT_EQ(positions.size(), 1u);
  EXPECT_EQ(positions[0].first, "collector");
  EXPECT_EQ(positions[0].second, end);
  EXPECT_GE((*reopened)->first_sequence(), end);
}

// A restart resumes the sink where its released position ended: what the
// first run could not deliver (its endpoint down until the drain deadline)
// reaches the second run's endpoint, and a sender's retry of those events
// is still recognised as a duplicate (the dedup window was rebuilt).
TEST_F(SpoolDaemonTest, ARestartDeliversWhatTheLastRunCouldNot) {
  TestHttpServer& down = AddServer();
  down.SetDefaultBehavior(Respond{.status = 503});
  const std::vector<RayEvent> delivered = TaskLifecycleEvents(10, "before-outage");
  const std::vector<RayEvent> undelivered = TaskLifecycleEvents(30, "during-outage");
  {
    DaemonHarness first(SpoolConfig(SpoolConfig::Sync::kInterval));
    ASSERT_TRUE(first.start_status().ok()) << first.start_status();
    ASSERT_TRUE(first.AddEvents(delivered).ok());
    ASSERT_TRUE(WaitForElements(server_, delivered.size()));
    ASSERT_TRUE(
        WaitFor([&] { return first.sink(0).counters().sent_events.load() == delivered.size(); }));
    Config outage = SpoolConfig(SpoolConfig::Sync::kInterval, &down);
    ASSERT_TRUE(first.daemon().Reload(outage).ok());
    ASSERT_TRUE(WaitFor([&] { return first.sink(0).reconfigurations() == 1; }));
    ASSERT_TRUE(first.AddEvents(undelivered).ok());
    ASSERT_TRUE(down.WaitForRequests(1, kWaitTimeout));
    first.Stop();  // the drain deadline passes with the endpoint still down
    EXPECT_EQ(first.sink(0).drops().Total(), 0u) << "kept for the next run, not dropped";
  }
  TestHttpServer& up = AddServer();
  DaemonHarness second(SpoolConfig(SpoolConfig::Sync::kInterval, &up));
  ASSERT_TRUE(second.start_status().ok()) << second.start_status();
  ASSERT_TRUE(WaitForElements(up, undelivered.size())) << [&] {
    std::string lines;
    for (const std::string& line : second.RecentLogs()) lines += line + "\n";
    return lines;
  }();
  const std::vector<std::string> ids = IdsOf(ElementsOf(up.Requests()));
  // At least once: every undelivered event, and nothing the first run had
  // already delivered (its position was past them).
  for (const std::string& id : IdsOf(undelivered)) {
    EXPECT_EQ(std::count(ids.begin(), ids.end(), id), 1) << id;
  }
  for (const std::string& id : IdsOf(delivered)) {
    EXPECT_EQ(std::count(ids.begin(), ids.end(), id), 0) << id;
  }
  // The sender retries the request the first run answered: a duplicate.
  ASSERT_TRUE(second.AddEvents(undelivered).ok());
  EXPECT_EQ(second.daemon().buffer_snapshot().deduplicated_events, undelivered.size());
}

// After a restart the sink's backlog counts the earlier run's unsent
// entries exactly, not the sequences between that run's newest entry and
// this run's first (an upper bound worked out from file sizes), and what
// the sink reads back of them is counted as replayed.
TEST_F(SpoolDaemonTest, AfterARestartBacklogAndReplayedCountTheEarlierRunsUnsentEvents) {
  TestHttpServer& down = AddServer();
  down.SetDefaultBehavior(Respond{.status = 503});
  const std::vector<RayEvent> unsent = TaskLifecycleEvents(30, "unsent");
  {
    DaemonHarness first(SpoolConfig(SpoolConfig::Sync::kInterval, &down));
    ASSERT_TRUE(first.start_status().ok()) << first.start_status();
    ASSERT_TRUE(first.AddEvents(unsent).ok());
    ASSERT_TRUE(down.WaitForRequests(1, kWaitTimeout));
  }  // stopped with the endpoint down: kept for the next run
  Config config = SpoolConfig(SpoolConfig::Sync::kInterval, &down);
  config.ops.enabled = true;
  config.ops.port = 0;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const std::map<std::string, std::string> collector = {{"sink", "collector"}};
  std::optional<PrometheusPage> page;
  ASSERT_TRUE(WaitFor([&] {
    page = ScrapeMetrics(harness().daemon().ops_port());
    return page && page->Value("rayagg_spool_recovering", {}).value_or(-1) == 0 &&
           page->Value("rayagg_sink_replayed_events_total", collector).value_or(-1) ==
               static_cast<double>(unsent.size());
  })) << (page ? page->Value("rayagg_sink_replayed_events_total", collector).value_or(-1) : -2);
  const spool::Spool& spool = *harness().daemon().spool();
  ASSERT_GT(spool.first_sequence(), spool.recovered_end()) << "no gap to leave out";
  EXPECT_EQ(page->Value("rayagg_sink_backlog_entries", collector).value_or(-1),
            static_cast<double>(unsent.size()));
  EXPECT_EQ(page->Value("rayagg_spool_moved_aside_segments", {}).value_or(-1), 0);
}

// Two sinks, one dead for the whole test: the healthy one gets everything,
// and the spool stays within max_bytes by evicting the oldest segments,
// whose events the dead sink had not sent are counted as its drops.
TEST_F(SpoolDaemonTest, ADeadSinkNeverPinsTheDiskBeyondTheBound) {
  TestHttpServer& dead = AddServer();
  dead.SetDefaultBehavior(Respond{.status = 503});
  Config config = SpoolConfig(SpoolConfig::Sync::kNever);
  config.spool.segment_bytes = 64 << 10;
  config.spool.max_bytes = 256 << 10;
  config.buffer.max_bytes = 64 << 10;
  config.sinks.push_back(FastHttpSink(dead.Url("/e"), "dead"));
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  size_t sent = 0;
  for (int request = 0; request < 40; ++request) {
    const std::vector<RayEvent> events =
        TaskLifecycleEvents(100, "bulk-" + std::to_string(request));
    ASSERT_TRUE(harness().AddEvents(events).ok());
    sent += events.size();
    // The healthy sink keeps up (a lagging one would lose evicted segments too).
    ASSERT_TRUE(WaitForElements(server_, sent));
  }
  ASSERT_TRUE(WaitForElements(server_, sent))
      << "got " << ElementsOf(server_.Requests()).size() << " of " << sent << ", drops "
      << harness().sink(0).drops().Total() << " overflow "
      << harness().sink(0).drops().Total(DropReason::kOverflow) << " evicted "
      << harness().daemon().spool()->Stats().evicted_segments << " released "
      << harness().daemon().log().ReleasedPosition(harness().sink(0).cursor()) << " next "
      << harness().daemon().buffer_snapshot().next_sequence;
  const spool::Spool& spool = *harness().daemon().spool();
  ASSERT_TRUE(WaitFor([&] { return spool.Stats().evicted_segments > 0; }));
  EXPECT_LE(spool.Stats().bytes, config.spool.max_bytes + config.spool.segment_bytes);
  EXPECT_GT(harness().sink(1).drops().Total(DropReason::kOverflow), 0u);
  EXPECT_EQ(harness().sink(0).drops().Total(), 0u);
}

TEST_F(SpoolDaemonTest, ASecondDaemonOnTheDirectoryIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(SpoolConfig(SpoolConfig::Sync::kInterval)));
  DaemonHarness second(SpoolConfig(SpoolConfig::Sync::kInterval));
  ASSERT_FALSE(second.start_status().ok());
  EXPECT_NE(std::string(second.start_status().message()).find("in use by another process"),
            std::string::npos)
      << second.start_status();
  EXPECT_NE(std::string(second.start_status().message()).find("spool.dir"), std::string::npos);
  // The first one is unaffected.
  const std::vector<RayEvent> events = TaskLifecycleEvents(3, "first");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));
}

TEST_F(SpoolDaemonTest, ReadyzBodyNamesTheSpoolState) {
  Config config = SpoolConfig(SpoolConfig::Sync::kInterval);
  config.ops.enabled = true;
  config.ops.port = 0;
  // An earlier run leaves records for recovery to find.
  {
    DaemonHarness first(SpoolConfig(SpoolConfig::Sync::kInterval));
    ASSERT_TRUE(first.start_status().ok()) << first.start_status();
    ASSERT_TRUE(first.AddEvents(TaskLifecycleEvents(5, "earlier")).ok());
  }
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  HttpResult ready;
  // Recovery runs behind serving: the line says "scanning" until it is done.
  ASSERT_TRUE(WaitFor([&] {
    ready = Request(harness().daemon().ops_port(), "/readyz", std::nullopt);
    return !ready.error && ready.response.body.find("spool recovery: done") != std::string::npos;
  })) << ready.response.body;
  EXPECT_EQ(ready.response.status, 200u);
  EXPECT_NE(ready.response.body.find("spool: healthy\n"), std::string::npos) << ready.response.body;
  EXPECT_NE(ready.response.body.find("spool recovery: done, records=5 "), std::string::npos)
      << ready.response.body;
}

TEST_F(SpoolDaemonTest, MetricsShowTheSpoolAndEachSinksBacklog) {
  TestHttpServer& down = AddServer();
  down.SetDefaultBehavior(Respond{.status = 503});
  Config config = SpoolConfig(SpoolConfig::Sync::kAlways, &down);
  config.ops.enabled = true;
  config.ops.port = 0;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const std::vector<RayEvent> events = TaskLifecycleEvents(12, "metrics");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(down.WaitForRequests(1, kWaitTimeout));
  const HttpResult scraped = Request(harness().daemon().ops_port(), "/metrics", std::nullopt);
  ASSERT_FALSE(scraped.error) << scraped.error.message();
  absl::StatusOr<PrometheusPage> page = ParsePrometheusText(scraped.response.body);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_GT(page->Value("rayagg_spool_bytes", {}).value_or(0), 0);
  EXPECT_GE(page->Value("rayagg_spool_segments", {}).value_or(0), 1);
  EXPECT_EQ(page->Value("rayagg_spool_writable", {}).value_or(-1), 1);
  EXPECT_EQ(page->Value("rayagg_spool_recovering", {}).value_or(-1), 0);
  EXPECT_EQ(page->Value("rayagg_spool_pending_bytes", {}).value_or(-1), 0) << "sync: always";
  EXPECT_EQ(page->Value("rayagg_sink_backlog_entries", {{"sink", "collector"}}).value_or(-1),
            static_cast<double>(events.size()))
      << "the endpoint is down: nothing released";
  EXPECT_GE(
      page->Value("rayagg_sink_oldest_unsent_age_seconds", {{"sink", "collector"}}).value_or(-1),
      0);
}

// An object-store sink (dir://) over a restart on the same spool: the
// first run's upload of one session's object keeps failing (a file stands
// where the session's directory must go) until the drain deadline, so its
// numbers were handed out but never stored; the second run keeps the writer,
// uploads those events again from the spool under new numbers and declares
// the old ones void. ray-task-history's manifest check over every object
// then finds one writer and no gap.
TEST_F(SpoolDaemonTest, AnObjectSinkKeepsItsWriterAcrossARestartWithNoGap) {
  const std::string bucket = dir_.Path("bucket");
  std::filesystem::create_directory(bucket);
  auto config = [&] {
    SinkConfig sink;
    sink.name = "history";
    sink.url = "dir://" + bucket;
    sink.event_types = EventTypeFilter::All();
    sink.cluster = ClusterConfig{.namespace_name = "ns", .name = "c", .kind = "raycluster"};
    sink.object.max_age = Duration(50);
    sink.retry.initial_backoff = Duration(10);
    sink.retry.max_backoff = Duration(50);
    Config daemon = TestConfig({sink});
    daemon.spool.dir = dir_.Path("spool");
    daemon.spool.max_bytes = 4 << 20;
    daemon.spool.segment_bytes = 1 << 20;
    return daemon;
  };
  const std::string stuck_session = "session_2026-01-02_00-00-00_000000_2";
  std::vector<RayEvent> stored, stuck;
  for (int i = 0; i < 12; ++i) stored.push_back(ObjectTestEvent(i));
  for (int i = 12; i < 20; ++i) stuck.push_back(ObjectTestEvent(i, stuck_session));
  const std::string blocker = bucket + "/cluster-history/raycluster/ns/c/" + stuck_session;
  std::string writer;
  {
    DaemonHarness first(config());
    ASSERT_TRUE(first.start_status().ok()) << first.start_status();
    const ObjectSink& sink = *first.daemon().object_sinks().at(0);
    writer = sink.writer();
    ASSERT_TRUE(first.AddEvents(stored).ok());
    ASSERT_TRUE(WaitFor([&] { return sink.counters().sent_events.load() == stored.size(); }));
    WriteWholeFile(blocker, "not a directory");
    ASSERT_TRUE(first.AddEvents(stuck).ok());
    ASSERT_TRUE(WaitFor([&] { return sink.counters().failed_attempts.load() >= 1; }));
    first.Stop();  // the drain deadline passes with the upload still failing
    EXPECT_EQ(sink.drops().Total(), 0u) << "kept in the spool for the next run";
  }
  std::filesystem::remove(blocker);
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config()));
  const ObjectSink& sink = *harness().daemon().object_sinks().at(0);
  EXPECT_EQ(sink.writer(), writer);
  EXPECT_EQ(sink.object_counters().writer_state_resets.load(), 0u);
  ASSERT_TRUE(WaitFor([&] { return sink.counters().sent_events.load() == stuck.size(); }));
  StopDaemon();

  // Every event object's manifest, then ray-task-history's check per session.
  const std::vector<StoredEventObject> objects = ReadEventObjects(bucket);
  std::string declared_void;
  for (const StoredEventObject& object : objects) {
    const auto manifest = [&](const std::string& name) {
      const auto found = object.manifest.find(name);
      return found == object.manifest.end() ? std::string() : found->second;
    };
    EXPECT_EQ(manifest("rayagg-writer"), writer) << object.key;
    if (!manifest("rayagg-seq-void").empty()) declared_void = manifest("rayagg-seq-void");
  }
  // The first run's numbers for the stuck object, 13..20, were never stored.
  EXPECT_EQ(declared_void, "13-20");
  const std::map<std::string, history::ManifestReport> reports =
      CheckManifestsPerSession(objects, dir_.Path("index"));
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [name, report] : reports) {
    EXPECT_EQ(report.writers, 1) << name;
    EXPECT_EQ(report.gaps, 0) << name;
    EXPECT_EQ(report.missing_events, 0) << name;
  }
}

}  // namespace
}  // namespace rayagg::test
