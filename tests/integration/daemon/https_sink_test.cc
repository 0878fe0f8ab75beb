// https:// sinks in the running daemon against a loopback HTTPS collector with
// a certificate from a CA generated for the test: delivery with tls.ca_file,
// counted and retried failures without it, mTLS, insecure_skip_verify, and
// TLS files that cannot be loaded stopping startup.
#include <gtest/gtest.h>

#include <string>

#include "support/daemon_fixture.h"
#include "support/temp_dir.h"
#include "support/test_certificates.h"
#include "support/test_tls_server.h"

namespace rayagg::test {
namespace {

const TestCertificates& Pki() {
  static const TestCertificates pki = MakeTestCertificates();
  return pki;
}

class HttpsSinkTest : public DaemonTest {
 protected:
  TempDir dir_;
  const std::string ca_file_ = dir_.Write("ca.pem", Pki().ca_cert);
};

TEST_F(HttpsSinkTest, DeliversWithTheCaFile) {
  TestTlsServer collector(Pki());
  SinkConfig sink = FastHttpSink(collector.Url("/events"));
  sink.tls.ca_file = ca_file_;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(5, "tls")).ok());
  ASSERT_TRUE(WaitFor([&] { return harness().sink(0).counters().sent_events.load() == 5; }));
  size_t elements = 0;
  for (const ReceivedTlsRequest& received : collector.Requests()) {
    elements += ElementCount(received.request.body);
  }
  EXPECT_EQ(elements, 5u);
  EXPECT_EQ(harness().sink(0).counters().failed_attempts.load(), 0u);
}

TEST_F(HttpsSinkTest, UntrustedCertificateIsACountedRetriedFailure) {
  TestTlsServer collector(Pki());
  // No ca_file: the system CAs do not know the test CA.
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(collector.Url("/events"))})));

  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(2, "untrusted")).ok());
  // Several attempts, each a failed handshake, none delivered.
  ASSERT_TRUE(collector.WaitForFailedHandshakes(3, kWaitTimeout));
  EXPECT_TRUE(WaitFor([&] { return harness().sink(0).counters().failed_attempts.load() >= 3; }));
  EXPECT_GE(harness().sink(0).counters().retries.load(), 2u);
  EXPECT_EQ(harness().sink(0).counters().sent_events.load(), 0u);
  EXPECT_EQ(collector.RequestCount(), 0u);
}

TEST_F(HttpsSinkTest, ClientCertificateWhenTheCollectorRequiresOne) {
  TestTlsServer collector(Pki(), TlsServerOptions{.require_client_certificate = true});
  SinkConfig sink = FastHttpSink(collector.Url("/events"));
  sink.tls.ca_file = ca_file_;
  sink.tls.cert_file = dir_.Write("client.pem", Pki().client_cert);
  sink.tls.key_file = dir_.Write("client.key", Pki().client_key);
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(1, "mtls")).ok());
  ASSERT_TRUE(collector.WaitForRequests(1, kWaitTimeout));
  EXPECT_EQ(collector.Requests()[0].client_common_name, "rayagg-test-client");
}

TEST_F(HttpsSinkTest, InsecureSkipVerifyDeliversWithoutTheCa) {
  TestTlsServer collector(Pki());
  SinkConfig sink = FastHttpSink(collector.Url("/events"));
  sink.tls.insecure_skip_verify = true;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(1, "insecure")).ok());
  ASSERT_TRUE(collector.WaitForRequests(1, kWaitTimeout));
  EXPECT_EQ(collector.FailedHandshakes(), 0u);
}

TEST_F(HttpsSinkTest, UnloadableCaFileStopsStartupNamingSinkAndKey) {
  SinkConfig sink = FastHttpSink("https://127.0.0.1:1/events", "secure");
  sink.tls.ca_file = dir_.Write("not-a-certificate.pem", "hello");
  DaemonHarness daemon(TestConfig({sink}));
  ASSERT_FALSE(daemon.start_status().ok());
  const std::string message(daemon.start_status().message());
  EXPECT_NE(message.find("sink secure"), std::string::npos) << message;
  EXPECT_NE(message.find("tls.ca_file"), std::string::npos) << message;
}

}  // namespace
}  // namespace rayagg::test
