// Ray's token mode end to end: with IngestAuthConfig from RAY_AUTH_MODE=token,
// AddEvents calls from a real gRPC client must carry "authorization: Bearer
// <token>", as Ray's clients send it, or get UNAUTHENTICATED and store nothing.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "support/daemon_fixture.h"

namespace rayagg::test {
namespace {

constexpr char kToken[] = "ray-cluster-token-0123456789abcdef";

class IngestAuthTest : public DaemonTest {
 protected:
  void StartWithToken() {
    Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
    config.ingest_auth = IngestAuthConfig{.token_required = true, .token = kToken};
    ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(harness().port()),
                                   grpc::InsecureChannelCredentials());
    stub_ = ray::rpc::events::EventAggregatorService::NewStub(channel_);
  }

  // One AddEvents call with `authorization` metadata, or none when nullopt.
  grpc::Status Call(const std::vector<RayEvent>& events, std::optional<std::string> authorization) {
    grpc::ClientContext context;
    context.set_deadline(RpcDeadlineIn(kRpcDeadline));
    if (authorization.has_value()) context.AddMetadata("authorization", *authorization);
    AddEventsReply reply;
    return stub_->AddEvents(&context, RequestOf(events), &reply);
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<ray::rpc::events::EventAggregatorService::Stub> stub_;
};

TEST_F(IngestAuthTest, CallsWithoutTheRightTokenAreUnauthenticated) {
  ASSERT_NO_FATAL_FAILURE(StartWithToken());
  const std::vector<RayEvent> events = TaskLifecycleEvents(2, "denied");

  EXPECT_EQ(Call(events, std::nullopt).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call(events, "Bearer wrong-token").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call(events, kToken).error_code(), grpc::StatusCode::UNAUTHENTICATED);  // no scheme
  // Ray's readiness probe (an empty request) is refused too without the token.
  EXPECT_EQ(Call({}, std::nullopt).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  const IngestCounters& counters = harness().daemon().ingest_counters();
  EXPECT_EQ(counters.unauthenticated_requests.load(), 4u);
  EXPECT_EQ(counters.requests.load(), 0u);
  EXPECT_EQ(counters.received_events.load(), 0u);
}

TEST_F(IngestAuthTest, CallsWithTheTokenAreDelivered) {
  ASSERT_NO_FATAL_FAILURE(StartWithToken());
  const std::vector<RayEvent> events = TaskLifecycleEvents(3, "allowed");

  const grpc::Status status = Call(events, std::string("Bearer ") + kToken);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(Call({}, std::string("Bearer ") + kToken).ok());  // readiness probe
  ASSERT_TRUE(WaitForElements(server_, events.size()));
  const IngestCounters& counters = harness().daemon().ingest_counters();
  EXPECT_EQ(counters.accepted_events.load(), events.size());
  EXPECT_EQ(counters.unauthenticated_requests.load(), 0u);
}

TEST_F(IngestAuthTest, WithoutTokenModeNoMetadataIsNeeded) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(1, "open")).ok());
  ASSERT_TRUE(WaitForElements(server_, 1));
}

}  // namespace
}  // namespace rayagg::test
