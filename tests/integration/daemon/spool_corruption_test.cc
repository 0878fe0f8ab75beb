// Five chosen corruptions of a disk spool, met by the real binary (issue 15):
// a torn last record, a flipped checksum byte, a truncated ledger, a segment
// the disk cannot read, and a spool of another format version. A first run
// fills the spool (its sink refuses, so nothing is released) and stops
// cleanly; the test damages the directory; a second run must start, serve
// and count what it found — or, for another format version, refuse with a
// message that says so. (Every byte flipped in turn, in-process:
// tests/unit/spool/spool_bitflip_test.cc.)
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "http/http_client.h"
#include "spool/format.h"
#include "spool/ledger.h"
#include "spool/recovery.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "support/condition_wait.h"
#include "support/daemon_fixture.h"
#include "support/metrics_scrape.h"
#include "support/prometheus_text.h"
#include "support/run_coroutine.h"
#include "support/sample_events.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "support/test_http_server.h"

#ifndef RAYAGG_BINARY
#error "RAYAGG_BINARY must name the ray-event-aggregator executable"
#endif

namespace rayagg::test {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

constexpr int kRequests = 150;
constexpr int kEventsPerRequest = 10;
constexpr size_t kEvents = kRequests * kEventsPerRequest;

uint32_t U32At(const std::string& bytes, size_t offset) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

// Where each record of a segment's bytes starts (the format of docs/SPOOL.md).
std::vector<size_t> RecordOffsets(const std::string& segment) {
  std::vector<size_t> offsets;
  size_t offset = spool::kSegmentHeaderBytes;
  while (offset + spool::kRecordHeaderBytes <= segment.size()) {
    offsets.push_back(offset);
    offset += spool::kRecordHeaderBytes + U32At(segment, offset + 4);
  }
  return offsets;
}

class SpoolCorruptionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure())
      std::cerr << "daemon stderr:\n" << ReadWholeFile(dir_.Path("stderr.txt")) << "\n";
  }

  fs::path spool_dir() const { return dir_.path() / "spool"; }

  std::string Config(const std::string& url) const {
    const std::string path = dir_.Path("config.yaml");
    std::ofstream(path, std::ios::trunc)
        << "grpc: {address: 127.0.0.1, port: 0}\n"
           "ops: {enabled: true, address: 127.0.0.1, port: 0}\n"
           "buffer: {coalesce: false}\n"
           "spool:\n"
           "  dir: "
        << spool_dir().string()
        << "\n"
           "  max_bytes: 4MiB\n"
           "  segment_bytes: 64KiB\n"
           "  sync: always\n"
           "shutdown: {drain_timeout: 300ms}\n"
           "sinks:\n"
           "  - name: collector\n"
           "    url: "
        << url
        << "\n"
           "    event_types: [ALL]\n"
           "    batch: {max_events: 100, flush_interval: 5ms}\n"
           "    retry: {initial_backoff: 5ms, max_backoff: 20ms}\n";
    return path;
  }

  std::unique_ptr<Subprocess> Start(const std::string& url) {
    for (const char* name : {"grpc.port", "ops.port"}) fs::remove(dir_.Path(name));
    auto daemon = std::make_unique<Subprocess>(
        RAYAGG_BINARY,
        std::vector<std::string>{"--config", Config(url), "--port-file", dir_.Path("grpc.port"),
                                 "--ops-port-file", dir_.Path("ops.port")},
        dir_.Path("stdout.txt"), dir_.Path("stderr.txt"));
    grpc_port_ = WaitForPortFile(*daemon, dir_.Path("grpc.port"), kWaitTimeout).value_or(0);
    ops_port_ = WaitForPortFile(*daemon, dir_.Path("ops.port"), kWaitTimeout).value_or(0);
    return daemon;
  }

  bool Send(const std::vector<RayEvent>& events) {
    auto stub = ray::rpc::events::EventAggregatorService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(grpc_port_), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(RpcDeadlineIn(kRpcDeadline));
    AddEventsReply reply;
    return stub->AddEvents(&context, RequestOf(events), &reply).ok();
  }

  // The first run: every event acknowledged and kept on disk, unreleased
  // (the sink refuses them all), then a clean stop.
  void FillSpool() {
    TestHttpServer refusing;
    refusing.SetDefaultBehavior(Respond{.status = 503});
    auto daemon = Start(refusing.Url("/e"));
    ASSERT_NE(grpc_port_, 0) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
    for (int request = 0; request < kRequests; ++request) {
      std::vector<RayEvent> events =
          TaskLifecycleEvents(kEventsPerRequest, "fill-" + std::to_string(request));
      ASSERT_TRUE(Send(events)) << "request " << request;
      for (const RayEvent& event : events) sent_ids_.push_back(JsonEventId(event));
    }
    ASSERT_TRUE(daemon->Signal(SIGTERM));
    const std::optional<int> status = daemon->WaitForExit(kWaitTimeout);
    ASSERT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
    segments_.clear();
    for (const auto& entry : fs::directory_iterator(spool_dir())) {
      if (entry.path().extension() == ".seg") segments_.push_back(entry.path());
    }
    std::sort(segments_.begin(), segments_.end());
    ASSERT_GE(segments_.size(), 3u) << "64 KiB segments: the events fill several";
  }

  // The second run serves: a new request is acknowledged and delivered.
  void ExpectServes(Subprocess& daemon) {
    ASSERT_NE(grpc_port_, 0) << DescribeStatus(daemon.WaitForExit(milliseconds(0)));
    const std::vector<RayEvent> fresh = TaskLifecycleEvents(3, "after-recovery");
    ASSERT_TRUE(Send(fresh));
    for (const RayEvent& event : fresh) {
      ASSERT_TRUE(WaitForEvent(server_, event)) << "a request after recovery was not delivered";
    }
  }

  // Waits until the sink has `count` of the first run's events, then
  // returns how many distinct ones it got (more would show up by then too).
  size_t DeliveredOfFirstRun(size_t count) {
    const std::set<std::string> sent(sent_ids_.begin(), sent_ids_.end());
    size_t delivered = 0;
    server_.WaitUntil(
        [&](const std::vector<ReceivedRequest>& requests) {
          std::set<std::string> got;
          for (const nlohmann::json& element : ElementsOf(requests)) {
            const std::string id = EventIdOf(element);
            if (sent.contains(id)) got.insert(id);
          }
          delivered = got.size();
          return delivered >= count;
        },
        kWaitTimeout);
    return delivered;
  }

  double Metric(const std::string& name) {
    const std::optional<PrometheusPage> page = ScrapeMetrics(ops_port_);
    return page ? page->Value(name).value_or(-1) : -1;
  }

  double CorruptDrops() {
    const std::optional<PrometheusPage> page = ScrapeMetrics(ops_port_);
    double total = 0;
    if (const PrometheusFamily* family =
            page ? page->Find("rayagg_sink_dropped_events_total") : nullptr) {
      for (const PrometheusSample& sample : family->samples) {
        if (sample.Label("reason") == "corrupt") total += sample.value;
      }
    }
    return total;
  }

  std::vector<std::string> MovedAside() const {
    std::vector<std::string> names;
    const fs::path aside = spool_dir() / std::string(spool::kMovedAsideDirectory);
    if (!fs::exists(aside)) return names;
    for (const auto& entry : fs::directory_iterator(aside)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  TempDir dir_;
  TestHttpServer server_;
  int grpc_port_ = 0;
  int ops_port_ = 0;
  std::vector<std::string> sent_ids_;
  std::vector<fs::path> segments_;
};

TEST_F(SpoolCorruptionTest, ATornLastRecordIsCutAndEverythingBeforeItDelivered) {
  ASSERT_NO_FATAL_FAILURE(FillSpool());
  const fs::path newest = segments_.back();
  const std::string bytes = ReadWholeFile(newest);
  const size_t last = RecordOffsets(bytes).back();
  const size_t cut = last + spool::kRecordHeaderBytes + 5;  // within the last payload
  ASSERT_LT(cut, bytes.size());
  fs::resize_file(newest, cut);

  auto daemon = Start(server_.Url("/e"));
  ASSERT_NO_FATAL_FAILURE(ExpectServes(*daemon));
  EXPECT_EQ(DeliveredOfFirstRun(kEvents - 1), kEvents - 1);
  ASSERT_TRUE(WaitFor([&] { return Metric("rayagg_spool_recovering") == 0; }));
  EXPECT_EQ(Metric("rayagg_spool_torn_bytes"), static_cast<double>(cut - last));
  EXPECT_EQ(Metric("rayagg_spool_corrupt_regions"), 0);
}

TEST_F(SpoolCorruptionTest, AFlippedChecksumByteIsSkippedAndCountedAsCorrupt) {
  ASSERT_NO_FATAL_FAILURE(FillSpool());
  const fs::path oldest = segments_.front();
  std::string bytes = ReadWholeFile(oldest);
  const size_t record = RecordOffsets(bytes).at(5);
  bytes[record] = static_cast<char>(bytes[record] ^ 0x01);  // the record's CRC32C
  WriteWholeFile(oldest, bytes);

  auto daemon = Start(server_.Url("/e"));
  ASSERT_NO_FATAL_FAILURE(ExpectServes(*daemon));
  EXPECT_EQ(DeliveredOfFirstRun(kEvents - 1), kEvents - 1);
  ASSERT_TRUE(WaitFor([&] { return CorruptDrops() == 1; })) << CorruptDrops();
  EXPECT_EQ(Metric("rayagg_spool_corrupt_regions"), 1);
}

TEST_F(SpoolCorruptionTest, ATruncatedLedgerIsMovedAsideAndTheSinkStartsAtTheOldestEvent) {
  ASSERT_NO_FATAL_FAILURE(FillSpool());
  // Both slots gone (a ledger cut within its first slot's header).
  fs::resize_file(spool_dir() / std::string(spool::kLedgerFileName), 10);

  auto daemon = Start(server_.Url("/e"));
  ASSERT_NO_FATAL_FAILURE(ExpectServes(*daemon));
  EXPECT_EQ(DeliveredOfFirstRun(kEvents), kEvents);
  const std::vector<std::string> aside = MovedAside();
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_TRUE(aside[0].ends_with("-ledger")) << aside[0];
}

TEST_F(SpoolCorruptionTest, ASegmentTheDiskCannotReadIsMovedAside) {
  ASSERT_NO_FATAL_FAILURE(FillSpool());
  // Reading a directory fails (EISDIR) like a disk error: running as root,
  // permissions could not make the file unreadable.
  const fs::path middle = segments_[1];
  const size_t lost = RecordOffsets(ReadWholeFile(middle)).size();
  fs::remove(middle);
  fs::create_directory(middle);

  auto daemon = Start(server_.Url("/e"));
  ASSERT_NO_FATAL_FAILURE(ExpectServes(*daemon));
  EXPECT_EQ(DeliveredOfFirstRun(kEvents - lost), kEvents - lost);
  const std::vector<std::string> aside = MovedAside();
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_TRUE(aside[0].ends_with("-" + middle.filename().string())) << aside[0];
  EXPECT_FALSE(fs::exists(middle));
  EXPECT_EQ(Metric("rayagg_spool_moved_aside_segments"), 1);
  // The sink had read none of it: one `corrupt` drop for the segment.
  ASSERT_TRUE(WaitFor([&] { return CorruptDrops() == 1; })) << CorruptDrops();
}

TEST_F(SpoolCorruptionTest, AnotherFormatVersionIsRefusedWithAMessageSayingSo) {
  ASSERT_NO_FATAL_FAILURE(FillSpool());
  const fs::path newest = segments_.back();
  std::string bytes = ReadWholeFile(newest);
  spool::SegmentHeader header;
  ASSERT_EQ(spool::DecodeSegmentHeader(bytes, header), spool::HeaderState::kValid);
  header.version = 99;  // a later build's, with a valid header checksum
  bytes.replace(0, spool::kSegmentHeaderBytes, spool::EncodeSegmentHeader(header));
  WriteWholeFile(newest, bytes);

  auto daemon = Start(server_.Url("/e"));
  const std::optional<int> status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 1)) << DescribeStatus(status);
  // The message is the point here (what an operator reads).
  const std::string error = ReadWholeFile(dir_.Path("stderr.txt"));
  EXPECT_NE(error.find("spool format version 99"), std::string::npos) << error;
  EXPECT_NE(error.find("this build reads version 1"), std::string::npos) << error;
  EXPECT_TRUE(fs::exists(newest)) << "nothing is moved or deleted";
}

}  // namespace
}  // namespace rayagg::test
