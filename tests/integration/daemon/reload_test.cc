// Daemon::Reload (what SIGHUP does): new sink settings take effect on the
// running sinks without losing what is buffered; invalid reloads change nothing.
#include <gtest/gtest.h>

#include "support/daemon_fixture.h"
#include "support/prometheus_text.h"

namespace rayagg::test {
namespace {

class ReloadTest : public DaemonTest {};

TEST_F(ReloadTest, NewUrlGetsTheBufferedAndRetriedEvents) {
  server_.SetDefaultBehavior(Respond{.status = 503});  // the old URL never accepts
  TestHttpServer& fixed = AddServer();
  Config config = TestConfig({FastHttpSink(server_.Url("/old"), "collector")});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const std::vector<RayEvent> first = TaskLifecycleEvents(20, "before");
  ASSERT_TRUE(harness().AddEvents(first).ok());
  ASSERT_TRUE(server_.WaitForRequests(2, kWaitTimeout));  // failing and retrying

  Config reloaded = config;
  reloaded.sinks[0].url = fixed.Url("/new");
  reloaded.sinks[0].headers = {{"X-Reloaded", "yes"}};
  ASSERT_TRUE(harness().daemon().Reload(reloaded).ok());
  ASSERT_TRUE(WaitFor([&] { return harness().sink(0).reconfigurations() == 1; }));
  const std::vector<RayEvent> second = TaskLifecycleEvents(5, "after");
  ASSERT_TRUE(harness().AddEvents(second).ok());

  ASSERT_TRUE(WaitForElements(fixed, first.size() + second.size()));
  const auto elements = ElementsOf(fixed.Requests());
  EXPECT_EQ(elements.size(), first.size() + second.size());
  for (const auto& request : fixed.Requests()) {
    EXPECT_EQ(request.target, "/new");
    EXPECT_EQ(request.Header("X-Reloaded"), "yes");
  }
  EXPECT_EQ(harness().sink(0).drops().Total(), 0u);
  EXPECT_TRUE(WaitFor([&] {
    return harness().sink(0).counters().sent_events.load() == first.size() + second.size();
  }));
}

TEST_F(ReloadTest, NewFilterAndBatchingApply) {
  Config config = TestConfig({FastHttpSink(server_.Url("/e"), "collector")});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  // Only node events from now on: task events appended before the sentinel
  // are passed over, the sentinel arrives.
  const RayEvent node_event = OneEventOfEveryType()[6];
  ASSERT_EQ(node_event.event_type(), RayEvent::NODE_DEFINITION_EVENT);
  Config reloaded = config;
  reloaded.sinks[0].event_types = EventTypeFilter::Of({node_event.event_type()});
  ASSERT_TRUE(harness().daemon().Reload(reloaded).ok());
  ASSERT_TRUE(WaitFor([&] { return harness().sink(0).reconfigurations() == 1; }));
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(3, "filtered")).ok());
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{node_event}).ok());
  ASSERT_TRUE(WaitForEvent(server_, node_event));
  EXPECT_EQ(ElementsOf(server_.Requests()).size(), 1u);

  const size_t seen = server_.RequestCount();
  reloaded.sinks[0].event_types = EventTypeFilter::All();
  reloaded.sinks[0].batch.max_events = 2;
  ASSERT_TRUE(harness().daemon().Reload(reloaded).ok());
  ASSERT_TRUE(WaitFor([&] { return harness().sink(0).reconfigurations() == 2; }));
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(5, "kept")).ok());
  ASSERT_TRUE(WaitForElements(server_, 6));
  const auto requests = server_.Requests();
  for (size_t i = seen; i < requests.size(); ++i) EXPECT_LE(ElementCount(requests[i].body), 2u);
  EXPECT_EQ(ElementsOf(requests, seen).size(), 5u);
}

TEST_F(ReloadTest, AddingOrRenamingSinksIsRefusedAndChangesNothing) {
  Config config = TestConfig({FastHttpSink(server_.Url("/e"), "collector")});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  Config more = config;
  more.sinks.push_back(FastHttpSink(server_.Url("/x"), "second"));
  EXPECT_FALSE(harness().daemon().Reload(more).ok());
  Config renamed = config;
  renamed.sinks[0].name = "other";
  renamed.sinks[0].url = server_.Url("/renamed");
  EXPECT_FALSE(harness().daemon().Reload(renamed).ok());
  EXPECT_EQ(harness().sink(0).reconfigurations(), 0u);
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(1, "still")).ok());
  ASSERT_TRUE(WaitForElements(server_, 1));
  EXPECT_EQ(server_.Requests()[0].target, "/e");
}

// The spool can only change on a restart: a reload that turns it on (or
// changes any of its keys) is refused, with the reason, and the sinks keep
// their settings.
TEST_F(ReloadTest, SpoolChangesAreRefusedWithTheReason) {
  Config config = TestConfig({FastHttpSink(server_.Url("/e"), "collector")});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  Config spooled = config;
  spooled.spool.dir = "/tmp/never-opened";
  spooled.spool.max_bytes = 1ull << 30;
  spooled.sinks[0].url = server_.Url("/changed");
  const absl::Status reloaded = harness().daemon().Reload(spooled);
  EXPECT_TRUE(absl::IsFailedPrecondition(reloaded)) << reloaded;
  EXPECT_NE(std::string(reloaded.message()).find("spool"), std::string::npos) << reloaded;
  EXPECT_EQ(harness().sink(0).reconfigurations(), 0u);
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(1, "still")).ok());
  ASSERT_TRUE(WaitForElements(server_, 1));
  EXPECT_EQ(server_.Requests()[0].target, "/e");
}

// A file that did not load and settings the sinks cannot take are both
// refused reloads, counted as such.
TEST_F(ReloadTest, EveryOutcomeIsCountedByResult) {
  Config config = TestConfig({FastHttpSink(server_.Url("/e"), "collector")});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  EXPECT_FALSE(harness().daemon().Reload(absl::InvalidArgumentError("sinks[0].url: bad")).ok());
  Config more = config;
  more.sinks.push_back(FastHttpSink(server_.Url("/x"), "second"));
  EXPECT_FALSE(harness().daemon().Reload(more).ok());
  EXPECT_TRUE(harness().daemon().Reload(config).ok());

  absl::StatusOr<PrometheusPage> page = ParsePrometheusText(harness().daemon().RenderMetricsPage());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->Value("rayagg_config_reloads_total", {{"result", "failure"}}).value_or(-1), 2);
  EXPECT_EQ(page->Value("rayagg_config_reloads_total", {{"result", "success"}}).value_or(-1), 1);
}

}  // namespace
}  // namespace rayagg::test
