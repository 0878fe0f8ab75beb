// The gRPC side of the whole daemon, driven by a real gRPC client: what
// AddEvents answers for valid, empty, malformed and oversized requests, what
// it counts, and that the daemon keeps serving after each of them.

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/daemon_fixture.h"
#include "support/json_compare.h"
#include "support/raw_http_client.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

using ray::rpc::events::AddEventsRequest;

// The quota test: the smallest quota config allows, and 32 times it sent at once.
constexpr uint64_t kQuotaBytes = 1024 * 1024;
constexpr size_t kCalls = 32;
constexpr size_t kCallBytes = 1024 * 1024;

class GrpcIngestTest : public DaemonTest {
 protected:
  // After any odd request the daemon must still take a normal one.
  void ExpectStillServing() {
    const std::vector<RayEvent> events = {TaskLifecycleEvent("still-serving", 0)};
    const uint64_t accepted_before = harness().daemon().ingest_counters().accepted_events.load();
    const grpc::Status status = harness().AddEvents(events);
    EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
    EXPECT_EQ(harness().daemon().ingest_counters().accepted_events.load(), accepted_before + 1);
  }

  // A channel to the daemon on a connection of its own (not shared with the
  // harness's channel), with the given arguments added.
  std::shared_ptr<grpc::Channel> OwnConnectionChannel(
      grpc::ChannelArguments arguments = grpc::ChannelArguments()) {
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(harness().port()),
                                     grpc::InsecureChannelCredentials(), arguments);
  }
};

TEST_F(GrpcIngestTest, EmptyRequestAnswersOkWithAnEmptyReply) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));

  // Ray's readiness probe: an AddEventsRequest with nothing in it.
  AddEventsReply reply;
  reply.mutable_status()->set_code(42);  // must be overwritten by the empty reply
  grpc::Status status = harness().AddEvents(AddEventsRequest(), &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(reply.has_status());
  EXPECT_EQ(reply.ByteSizeLong(), 0u);

  // The same on the wire: zero request bytes in, zero reply bytes out.
  std::string reply_bytes = "not empty";
  status = harness().AddEventsRaw("", &reply_bytes);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply_bytes, "");

  // An events_data that is present but empty is still an empty request.
  AddEventsRequest empty_data;
  empty_data.mutable_events_data();
  status = harness().AddEvents(empty_data);
  ASSERT_TRUE(status.ok()) << status.error_message();

  const IngestCounters& counters = harness().daemon().ingest_counters();
  EXPECT_EQ(counters.requests.load(), 3u);
  EXPECT_EQ(counters.received_events.load(), 0u);
  EXPECT_EQ(counters.rejected_requests.load(), 0u);
  EXPECT_EQ(harness().daemon().buffer_snapshot().appended_events, 0u);
}

TEST_F(GrpcIngestTest, ValidRequestIsInTheBufferWhenOkIsAnswered) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));
  const std::vector<RayEvent> events = TaskLifecycleEvents(3, "valid");

  AddEventsReply reply;
  const grpc::Status status = harness().AddEvents(RequestOf(events), &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.ByteSizeLong(), 0u);

  // No waiting: OK means the events were appended before the answer.
  EXPECT_EQ(harness().daemon().buffer_snapshot().appended_events, 3u);
  const IngestCounters& counters = harness().daemon().ingest_counters();
  EXPECT_EQ(counters.requests.load(), 1u);
  EXPECT_EQ(counters.received_events.load(), 3u);
  EXPECT_EQ(counters.accepted_events.load(), 3u);
  EXPECT_EQ(counters.rejected_requests.load(), 0u);
  EXPECT_EQ(counters.refused_requests.load(), 0u);

  ASSERT_TRUE(WaitForElements(server_, 3));
  EXPECT_EQ(ElementsOf(server_.Requests()).size(), 3u);
}

TEST_F(GrpcIngestTest, DroppedTaskAttemptsAreCountedButNeverExported) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));

  const std::vector<RayEvent> events = TaskLifecycleEvents(2, "with-metadata");
  AddEventsRequest request = RequestOf(events);
  AddDroppedTaskAttempts(request, 5);
  grpc::Status status = harness().AddEvents(request);
  ASSERT_TRUE(status.ok()) << status.error_message();

  // Metadata alone (a sender that only lost events) is accepted as well.
  AddEventsRequest metadata_only;
  AddDroppedTaskAttempts(metadata_only, 3);
  status = harness().AddEvents(metadata_only);
  ASSERT_TRUE(status.ok()) << status.error_message();

  const IngestCounters& counters = harness().daemon().ingest_counters();
  EXPECT_EQ(counters.sender_dropped_task_attempts.load(), 8u);
  EXPECT_EQ(counters.received_events.load(), 2u);

  // A sentinel sent last: once it arrived, whatever the earlier requests
  // could have produced has arrived too (one sink delivers in order).
  const RayEvent sentinel = TaskLifecycleEvent("sentinel", 0);
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{sentinel}).ok());
  ASSERT_TRUE(WaitForEvent(server_, sentinel));

  const std::vector<ReceivedRequest> requests = server_.Requests();
  std::set<std::string> ids;
  for (const auto& element : ElementsOf(requests)) ids.insert(EventIdOf(element));
  EXPECT_EQ(ids, (std::set<std::string>{JsonEventId(events[0]), JsonEventId(events[1]),
                                        JsonEventId(sentinel)}));
  for (const auto& received : requests) {
    EXPECT_EQ(received.body.find("dropped-task"), std::string::npos) << received.body;
    EXPECT_EQ(received.body.find("droppedTaskAttempts"), std::string::npos) << received.body;
  }
}

TEST_F(GrpcIngestTest, MalformedPayloadsGetInvalidArgumentAndTheDaemonStaysUp) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));

  const std::string valid = RequestOf(TaskLifecycleEvents(2, "cut")).SerializeAsString();
  // A valid request cut short inside its last event.
  const std::string truncated = valid.substr(0, valid.size() - 3);
  // events_data holding one "event" whose bytes are not a RayEvent:
  // field 1 (event_id), length 5, but only 2 bytes follow inside the event.
  const std::string bad_event = std::string("\x0a\x06\x0a\x04\x0a\x05\x01\x02", 8);
  const std::vector<std::pair<std::string, std::string>> payloads = {
      {"varint tag that never ends", std::string(11, '\xff')},
      {"invalid wire type 7", std::string("\x0f\x00", 2)},
      {"truncated request", truncated},
      {"event that is not a RayEvent", bad_event},
      {"plain text", "this is not protobuf at all"},
  };

  uint64_t rejected = 0;
  for (const auto& [what, payload] : payloads) {
    SCOPED_TRACE(what);
    const grpc::Status status = harness().AddEventsRaw(payload);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_EQ(harness().daemon().ingest_counters().rejected_requests.load(), ++rejected);
    ExpectStillServing();
  }
  // A rejected request contributes nothing, not even the valid events in it.
  EXPECT_EQ(harness().daemon().ingest_counters().accepted_events.load(), payloads.size());
}

TEST_F(GrpcIngestTest, RequestAboveTheConfiguredLimitGetsResourceExhausted) {
  Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
  config.grpc.max_receive_message_bytes = 64 * 1024;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));

  RayEvent big = TaskLifecycleEvent("big", 0);
  big.set_message(std::string(100 * 1024, 'x'));
  grpc::Status status = harness().AddEvents(std::vector<RayEvent>{big});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_EQ(harness().daemon().ingest_counters().received_events.load(), 0u);
  ExpectStillServing();

  RayEvent fits = TaskLifecycleEvent("fits", 0);
  fits.set_message(std::string(32 * 1024, 'y'));
  status = harness().AddEvents(std::vector<RayEvent>{fits});
  EXPECT_TRUE(status.ok()) << status.error_message();
}

// A request whose serialized size is exactly `size` bytes.
AddEventsRequest RequestOfExactSize(size_t size) {
  RayEvent event = TaskLifecycleEvent("exact", 0);
  AddEventsRequest request;
  size_t padding = size;  // shrunk below; varint lengths make it converge in a few steps
  for (int step = 0; step < 10; ++step) {
    event.set_message(std::string(padding, 'p'));
    request = RequestOf(std::vector<RayEvent>{event});
    const size_t actual = request.ByteSizeLong();
    if (actual == size) return request;
    padding = padding + size - actual;
  }
  ADD_FAILURE() << "could not build a request of exactly " << size << " bytes";
  return request;
}

// A peer that connects and never completes the HTTP/2 handshake (a
// slowloris on gRPC) gets GOAWAY and is closed after grpc.handshake_timeout;
// real callers are served meanwhile.
TEST_F(GrpcIngestTest, ConnectionWithoutHandshakeIsClosedAtTheTimeout) {
  Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
  config.grpc.handshake_timeout = std::chrono::milliseconds(200);
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  RawHttpClient silent(static_cast<uint16_t>(harness().port()), kConditionTimeout);
  ExpectStillServing();
  // gRPC's own SETTINGS, then GOAWAY saying why, then the close (a
  // connection never closed would make ReadUntilClosed throw).
  const std::string received = silent.ReadUntilClosed();
  EXPECT_NE(received.find("handshake timeout"), std::string::npos);
  ExpectStillServing();
}

// grpc.max_concurrent_streams is what the server announces in its HTTP/2
// SETTINGS, read here from a real connection.
TEST_F(GrpcIngestTest, MaxConcurrentStreamsIsAnnounced) {
  Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
  config.grpc.max_concurrent_streams = 7;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  asio::io_context io_context;
  asio::ip::tcp::socket socket(io_context);
  socket.connect({asio::ip::make_address_v4("127.0.0.1"), static_cast<uint16_t>(harness().port())});
  // The client connection preface and an empty SETTINGS frame.
  const std::string preface =
      std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + std::string("\0\0\0\x04\0\0\0\0\0", 9);
  asio::write(socket, asio::buffer(preface));
  std::optional<uint32_t> announced;
  for (int frame = 0; frame < 8 && !announced; ++frame) {
    std::array<uint8_t, 9> header{};
    asio::read(socket, asio::buffer(header));
    const size_t length = (size_t{header[0]} << 16) | (size_t{header[1]} << 8) | header[2];
    std::vector<uint8_t> payload(length);
    asio::read(socket, asio::buffer(payload));
    const bool settings = header[3] == 0x4 && (header[4] & 0x1) == 0;
    for (size_t at = 0; settings && at + 6 <= length; at += 6) {
      const uint16_t id = static_cast<uint16_t>((payload[at] << 8) | payload[at + 1]);
      const uint32_t value = (uint32_t{payload[at + 2]} << 24) | (uint32_t{payload[at + 3]} << 16) |
                             (uint32_t{payload[at + 4]} << 8) | payload[at + 5];
      if (id == 0x3) announced = value;  // SETTINGS_MAX_CONCURRENT_STREAMS
    }
  }
  EXPECT_EQ(announced, 7u);
}

// grpc.max_concurrent_streams bounds the calls open on one connection: with
// a limit of 1 and one call held open by a real gRPC client (its header sent,
// its message not yet), a second call on that connection is never sent — it
// can only end at its deadline, and the server never sees it — and once the
// held call has sent its message and had its answer, calls get through again.
TEST_F(GrpcIngestTest, CallsBeyondMaxConcurrentStreamsWaitInTheClient) {
  Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
  config.grpc.max_concurrent_streams = 1;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const std::shared_ptr<grpc::Channel> channel = OwnConnectionChannel();
  auto stub = ray::rpc::events::EventAggregatorService::NewStub(channel);
  const std::vector<RayEvent> events = {TaskLifecycleEvent("stream-limit", 0)};
  const AddEventsRequest request = RequestOf(events);
  auto unary = [&](std::chrono::milliseconds deadline) {
    grpc::ClientContext context;
    context.set_deadline(RpcDeadlineIn(deadline));
    ray::rpc::events::AddEventsReply reply;
    return stub->AddEvents(&context, request, &reply);
  };
  // One call first: the server's SETTINGS, with the limit, have reached the client.
  ASSERT_TRUE(unary(kRpcDeadline).ok());
  const uint64_t requests_before = harness().daemon().ingest_counters().requests.load();

  grpc::CompletionQueue queue;
  auto completes = [&queue](intptr_t expected) {
    void* tag = nullptr;
    bool ok = false;
    return queue.Next(&tag, &ok) && ok && tag == reinterpret_cast<void*>(expected);
  };
  grpc::GenericStub generic(channel);
  grpc::ClientContext held_context;
  held_context.set_deadline(RpcDeadlineIn(kRpcDeadline));
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> held =
      generic.PrepareCall(&held_context, std::string(kAddEventsMethod), &queue);
  held->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(completes(1));

  // The one stream is taken: the second call waits in the client. (Its
  // deadline only bounds the wait; it could not get through in any time.)
  EXPECT_EQ(unary(std::chrono::milliseconds(300)).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(harness().daemon().ingest_counters().requests.load(), requests_before);

  // The held call sends its message and is answered; the stream is free again.
  const std::string bytes = request.SerializeAsString();
  grpc::Slice slice(bytes.data(), bytes.size());
  grpc::ByteBuffer message(&slice, 1);
  held->Write(message, reinterpret_cast<void*>(2));
  ASSERT_TRUE(completes(2));
  held->WritesDone(reinterpret_cast<void*>(3));
  ASSERT_TRUE(completes(3));
  grpc::ByteBuffer reply;
  held->Read(&reply, reinterpret_cast<void*>(4));
  ASSERT_TRUE(completes(4));
  grpc::Status held_status;
  held->Finish(&held_status, reinterpret_cast<void*>(5));
  ASSERT_TRUE(completes(5));
  EXPECT_TRUE(held_status.ok()) << held_status.error_message();
  EXPECT_TRUE(unary(kRpcDeadline).ok());
  EXPECT_EQ(harness().daemon().ingest_counters().requests.load(), requests_before + 2);
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
}

// grpc.memory_limit_bytes is the resource quota of gRPC's server: with the
// smallest allowed quota and 32 one-MiB calls sent at once by a real gRPC
// client, gRPC 1.51 resets some streams (RST_STREAM ENHANCE_YOUR_CALM: the
// client sees RESOURCE_EXHAUSTED) and may close the connection (GOAWAY:
// UNAVAILABLE) rather than hold them all; found by experiment, in each run
// most calls got RESOURCE_EXHAUSTED. A call cut off before its message
// arrived is counted as no_message, never as an invalid payload, and every
// event that arrived was accepted. Afterwards a small call succeeds.
TEST_F(GrpcIngestTest, CallsBeyondTheMemoryQuotaAreRefusedAndTheDaemonServesOn) {
  Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
  config.grpc.memory_limit_bytes = kQuotaBytes;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const std::shared_ptr<grpc::Channel> channel = OwnConnectionChannel();
  auto stub = ray::rpc::events::EventAggregatorService::NewStub(channel);

  struct Call {
    grpc::ClientContext context;
    ray::rpc::events::AddEventsReply reply;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<ray::rpc::events::AddEventsReply>> reader;
  };
  grpc::CompletionQueue queue;
  std::vector<std::unique_ptr<Call>> calls;
  for (size_t i = 0; i < kCalls; ++i) {
    RayEvent big = TaskLifecycleEvent("quota-" + std::to_string(i), 0);
    big.set_message(std::string(kCallBytes, 'q'));
    auto call = std::make_unique<Call>();
    call->context.set_deadline(RpcDeadlineIn(kRpcDeadline));
    call->reader =
        stub->AsyncAddEvents(&call->context, RequestOf(std::vector<RayEvent>{big}), &queue);
    call->reader->Finish(&call->reply, &call->status, call.get());
    calls.push_back(std::move(call));
  }
  std::map<grpc::StatusCode, size_t> outcomes;
  for (size_t done = 0; done < kCalls; ++done) {
    void* tag = nullptr;
    bool ok = false;
    ASSERT_TRUE(queue.Next(&tag, &ok));
    const grpc::Status& status = static_cast<Call*>(tag)->status;
    ++outcomes[status.error_code()];
    EXPECT_TRUE(status.ok() || status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
                status.error_code() == grpc::StatusCode::UNAVAILABLE)
        << status.error_code() << " " << status.error_message();
  }
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
  EXPECT_GT(outcomes[grpc::StatusCode::RESOURCE_EXHAUSTED], 0u);

  const IngestCounters& counters = harness().daemon().ingest_counters();
  // Each call that reached the handler brought its one event or no message,
  // and every event that arrived is accepted. Handlers may still be running
  // for calls whose client already has its status: wait for them.
  EXPECT_TRUE(WaitFor([&] {
    return counters.requests.load() ==
               counters.received_events.load() + counters.no_message_requests.load() &&
           counters.accepted_events.load() == counters.received_events.load();
  })) << "requests "
      << counters.requests.load() << ", received events " << counters.received_events.load()
      << ", no message " << counters.no_message_requests.load() << ", accepted events "
      << counters.accepted_events.load();
  EXPECT_EQ(counters.rejected_requests.load(), 0u);
  // Every OK had its event accepted; an accepted call may still have lost its
  // answer to the reset (the sender retries; at least once).
  EXPECT_GE(counters.accepted_events.load(), outcomes[grpc::StatusCode::OK]);

  // A small call on the same channel (reconnecting after a GOAWAY) succeeds.
  grpc::ClientContext context;
  context.set_deadline(RpcDeadlineIn(kRpcDeadline));
  context.set_wait_for_ready(true);
  ray::rpc::events::AddEventsReply reply;
  const grpc::Status small = stub->AddEvents(
      &context, RequestOf(std::vector<RayEvent>{TaskLifecycleEvent("small", 0)}), &reply);
  EXPECT_TRUE(small.ok()) << small.error_code() << " " << small.error_message();
  ExpectStillServing();
}

// Keepalive enforcement: a real gRPC client that pings far more often than
// grpc.keepalive_min_interval (every 100 ms against an hour) gets GOAWAY
// too_many_pings after two strikes and its connection is closed, whatever
// the machine's speed (it only takes three pings); the daemon keeps serving
// and the next call connects again.
TEST_F(GrpcIngestTest, ClientPingingTooOftenIsDisconnected) {
  Config config = TestConfig({FastHttpSink(server_.Url("/events"))});
  config.grpc.keepalive_min_interval = std::chrono::hours(1);
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 100);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  arguments.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);  // the client's own limit: none
  arguments.SetInt(GRPC_ARG_HTTP2_MIN_SENT_PING_INTERVAL_WITHOUT_DATA_MS, 10);
  const std::shared_ptr<grpc::Channel> channel = OwnConnectionChannel(arguments);
  auto stub = ray::rpc::events::EventAggregatorService::NewStub(channel);
  const AddEventsRequest request = RequestOf(std::vector<RayEvent>{TaskLifecycleEvent("ping", 0)});
  auto call = [&] {
    grpc::ClientContext context;
    context.set_deadline(RpcDeadlineIn(kRpcDeadline));
    ray::rpc::events::AddEventsReply reply;
    return stub->AddEvents(&context, request, &reply);
  };
  ASSERT_TRUE(call().ok());
  ASSERT_EQ(channel->GetState(false), GRPC_CHANNEL_READY);
  // The server's keepalive pings come every 60 s and the test's connection is
  // otherwise left alone: only the GOAWAY makes the channel leave READY.
  ASSERT_TRUE(channel->WaitForStateChange(GRPC_CHANNEL_READY, RpcDeadlineIn(kConditionTimeout)));
  EXPECT_NE(channel->GetState(false), GRPC_CHANNEL_READY);
  ExpectStillServing();
  EXPECT_TRUE(call().ok());
}

TEST_F(GrpcIngestTest, DefaultReceiveLimitIsRaysTwentyMebibytes) {
  constexpr size_t kLimit = 20 * 1024 * 1024;
  ASSERT_EQ(Config().grpc.max_receive_message_bytes, kLimit);
  // No sinks: the events are accepted and discarded, nothing is encoded.
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({})));

  grpc::Status status = harness().AddEvents(RequestOfExactSize(kLimit));
  EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  status = harness().AddEvents(RequestOfExactSize(kLimit + 1));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_EQ(harness().daemon().ingest_counters().accepted_events.load(), 1u);
  ExpectStillServing();
}

TEST_F(GrpcIngestTest, UnknownFieldsAndEnumValuesPassThroughAsProtobufPrintsThem) {
  // ALL also accepts event types this build does not know.
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));

  // A newer sender: a RayEvent field this schema lacks, on the envelope and
  // inside the payload.
  RayEvent unknown_field = TaskLifecycleEvent("unknown-field", 0);
  unknown_field.GetReflection()->MutableUnknownFields(&unknown_field)->AddVarint(99, 12345);
  unknown_field.GetReflection()
      ->MutableUnknownFields(&unknown_field)
      ->AddLengthDelimited(100, "future payload");
  auto* payload = unknown_field.mutable_task_lifecycle_event();
  payload->GetReflection()->MutableUnknownFields(payload)->AddFixed32(77, 7);

  // An event type number unknown to this build (no payload we could know).
  RayEvent unknown_type = TaskLifecycleEvent("unknown-type", 0);
  unknown_type.clear_task_lifecycle_event();
  unknown_type.set_event_type(static_cast<RayEvent::EventType>(77));

  // A TaskStatus number unknown to this build inside a state transition.
  RayEvent unknown_state =
      TaskLifecycleEvent("unknown-state", 0, static_cast<ray::rpc::TaskStatus>(99));

  const std::vector<RayEvent> events = {unknown_field, unknown_type, unknown_state};
  const grpc::Status status = harness().AddEvents(events);
  ASSERT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  EXPECT_EQ(harness().daemon().ingest_counters().accepted_events.load(), 3u);
  ASSERT_TRUE(WaitForElements(server_, 3));

  const std::vector<nlohmann::json> elements = ElementsOf(server_.Requests());
  ASSERT_EQ(elements.size(), 3u);
  for (size_t i = 0; i < events.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(JsonEquivalent(elements[i], ParseJson(ProtobufPrinterJson(events[i]))));
  }
  // What the printer does with them, spelled out: unknown fields are left
  // out, unknown enum values print as their numbers.
  EXPECT_EQ(elements[0].dump().find("future payload"), std::string::npos);
  EXPECT_EQ(elements[1].at("eventType"), 77);
  EXPECT_EQ(elements[2].at("taskLifecycleEvent").at("stateTransitions").at(0).at("state"), 99);
}

}  // namespace
}  // namespace rayagg::test
