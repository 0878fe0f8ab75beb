// AddEvents finishes when the appender reports, not before, and a reaction
// never waits for it: with a disk spool the appender answers later, from
// the spool's writer thread (docs/DELIVERY.md, "What an acknowledgement
// means"). Driven by a real gRPC client against an appender the test answers.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "ingest/grpc_ingest_server.h"
#include "rayagg/mutex.h"
#include "support/condition_wait.h"
#include "support/manual_clock.h"
#include "support/sample_events.h"

namespace rayagg {
namespace {

using namespace std::chrono_literals;

// Holds every AppendAsync until the test answers it.
class DeferringAppender final : public EventAppender {
 public:
  absl::Status Append(std::span<const IncomingEvent>) override {
    ADD_FAILURE() << "ingest must use AppendAsync";
    return absl::OkStatus();
  }
  void AppendAsync(std::span<const IncomingEvent> events, AppendDone done) override {
    MutexLock lock(mutex_);
    sizes_.push_back(events.size());
    pending_.push_back(std::move(done));
    changed_.SignalAll();
  }
  // Waits for `count` pending appends.
  bool WaitPending(size_t count) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, 30s, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return pending_.size() >= count;
    });
  }
  // Answers pending append `index` from another thread.
  void Answer(size_t index, absl::Status status) {
    AppendDone done;
    {
      MutexLock lock(mutex_);
      done = std::move(pending_.at(index));
    }
    std::thread([done = std::move(done), status] { done(status); }).join();
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  std::vector<size_t> sizes_ ABSL_GUARDED_BY(mutex_);
  std::vector<AppendDone> pending_ ABSL_GUARDED_BY(mutex_);
};

class GrpcAsyncAppendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GrpcConfig config;
    config.port = 0;
    server_ = std::make_unique<GrpcIngestServer>(config, appender_, counters_, *logger_,
                                                 IngestAuthConfig{}, clock_);
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(*port),
                                   grpc::InsecureChannelCredentials());
    stub_ = ray::rpc::events::EventAggregatorService::NewStub(channel_);
  }
  void TearDown() override { server_->Shutdown(test::RpcDeadlineIn(1s)); }

  std::future<grpc::Status> Send(size_t events) {
    return std::async(std::launch::async, [this, events] {
      grpc::ClientContext context;
      context.set_deadline(test::RpcDeadlineIn(test::kConditionTimeout));
      ray::rpc::events::AddEventsReply reply;
      return stub_->AddEvents(&context, test::RequestOf(test::TaskLifecycleEvents(events)), &reply);
    });
  }

  std::shared_ptr<spdlog::logger> logger_ =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  DeferringAppender appender_;
  IngestCounters counters_;
  test::ManualClock clock_;
  std::unique_ptr<GrpcIngestServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<ray::rpc::events::EventAggregatorService::Stub> stub_;
};

TEST_F(GrpcAsyncAppendTest, CallFinishesWhenTheAppenderReportsInAnyOrder) {
  std::future<grpc::Status> first = Send(3);
  ASSERT_TRUE(appender_.WaitPending(1));
  // The first call is still open; a second one is served meanwhile.
  std::future<grpc::Status> second = Send(2);
  ASSERT_TRUE(appender_.WaitPending(2));
  EXPECT_EQ(first.wait_for(0s), std::future_status::timeout);
  EXPECT_EQ(counters_.accepted_events.load(), 0u);

  appender_.Answer(1, absl::OkStatus());
  EXPECT_TRUE(second.get().ok());
  EXPECT_EQ(first.wait_for(0s), std::future_status::timeout);
  EXPECT_EQ(counters_.accepted_events.load(), 2u);

  appender_.Answer(0, absl::UnavailableError("the spool cannot write (disk full); retry later"));
  const grpc::Status refused = first.get();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(refused.error_message(), "the spool cannot write (disk full); retry later");
  EXPECT_EQ(counters_.refused_requests.load(), 1u);
  EXPECT_EQ(counters_.accepted_events.load(), 2u);
}

}  // namespace
}  // namespace rayagg
