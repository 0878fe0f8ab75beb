// HttpClient over TLS against a real loopback HTTPS server whose certificate
// comes from a CA generated for the test: verification against a CA file,
// failure without it, host name checks and SNI, mTLS, insecure_skip_verify,
// the handshake deadline and keep-alive reuse.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "http/http_client.h"
#include "http/tls_context.h"
#include "support/run_coroutine.h"
#include "support/temp_dir.h"
#include "support/test_certificates.h"
#include "support/test_tls_server.h"

namespace {

using namespace std::chrono_literals;
using rayagg::HttpClient;
using rayagg::HttpClientTls;
using rayagg::HttpResult;
using rayagg::TlsConfig;
using rayagg::test::MakeTestCertificates;
using rayagg::test::RunCoroutine;
using rayagg::test::TempDir;
using rayagg::test::TestCertificates;
using rayagg::test::TestTlsServer;
using rayagg::test::TlsServerOptions;
namespace asio = rayagg::asio;

constexpr auto kRequestTimeout = 10s;
constexpr auto kWait = 10s;

// One PKI for the whole suite: key generation is the slow part.
const TestCertificates& Pki() {
  static const TestCertificates pki = MakeTestCertificates();
  return pki;
}

class HttpsClientTest : public ::testing::Test {
 protected:
  HttpsClientTest()
      : ca_file_(dir_.Write("ca.pem", Pki().ca_cert)),
        client_cert_(dir_.Write("client.pem", Pki().client_cert)),
        client_key_(dir_.Write("client.key", Pki().client_key)) {}

  std::unique_ptr<HttpClient> MakeClient(const std::string& url, const TlsConfig& tls,
                                         std::chrono::milliseconds timeout = kRequestTimeout) {
    auto parsed = rayagg::ParseUrl(url);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<HttpClientTls> made = rayagg::MakeHttpClientTls(tls);
    EXPECT_TRUE(made.ok()) << made.status();
    return std::make_unique<HttpClient>(io_context_.get_executor(), *parsed, timeout, *made);
  }

  HttpResult Post(HttpClient& client, std::string body = "[]") {
    return RunCoroutine(io_context_, client.Post(std::move(body), {}));
  }

  TlsConfig WithCa() const { return TlsConfig{.ca_file = ca_file_}; }

  TempDir dir_;
  const std::string ca_file_;
  const std::string client_cert_;
  const std::string client_key_;
  asio::io_context io_context_;
};

TEST_F(HttpsClientTest, VerifiesAgainstTheCaFileAndReusesTheConnection) {
  TestTlsServer server(Pki());
  auto client = MakeClient(server.Url("/events"), WithCa());

  const HttpResult first = Post(*client, R"([{"a":1}])");
  ASSERT_FALSE(first.error) << first.error.message();
  EXPECT_EQ(first.response.status, 200u);
  ASSERT_FALSE(Post(*client).error);
  EXPECT_EQ(client->connections_opened(), 1u);  // keep-alive over TLS

  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].request.target, "/events");
  EXPECT_EQ(requests[0].request.body, R"([{"a":1}])");
  EXPECT_EQ(requests[0].server_name, "");  // no SNI for an address literal
}

TEST_F(HttpsClientTest, WithoutTheCaTheHandshakeFails) {
  TestTlsServer server(Pki());
  // Only the system CAs, which never signed the test CA.
  auto client = MakeClient(server.Url("/events"), TlsConfig{});
  const HttpResult result = Post(*client);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error.category(), asio::error::get_ssl_category()) << result.error.message();
  EXPECT_TRUE(server.WaitForFailedHandshakes(1, kWait));
  EXPECT_EQ(server.RequestCount(), 0u);

  // A CA that signed something else does not help either.
  TlsConfig other{.ca_file = dir_.Write("other-ca.pem", Pki().other_ca_cert)};
  EXPECT_TRUE(Post(*MakeClient(server.Url("/events"), other)).error);
  EXPECT_EQ(server.RequestCount(), 0u);
}

TEST_F(HttpsClientTest, ServerNameIsSentAsSniAndChecked) {
  TestTlsServer server(Pki());
  TlsConfig tls = WithCa();
  tls.server_name = "localhost";  // in the certificate's SAN
  auto client = MakeClient(server.Url("/events"), tls);
  ASSERT_FALSE(Post(*client).error);
  ASSERT_EQ(server.RequestCount(), 1u);
  EXPECT_EQ(server.Requests()[0].server_name, "localhost");

  // The URL host is used when server_name is not set, and it is checked.
  ASSERT_FALSE(Post(*MakeClient(server.Url("/events", "localhost"), WithCa())).error);
  EXPECT_EQ(server.Requests().back().server_name, "localhost");

  tls.server_name = "collector.example";  // trusted CA, wrong name
  const HttpResult wrong_name = Post(*MakeClient(server.Url("/events"), tls));
  ASSERT_TRUE(wrong_name.error);
  EXPECT_EQ(server.RequestCount(), 2u);
}

TEST_F(HttpsClientTest, ClientCertificateForAServerThatRequiresOne) {
  TestTlsServer server(Pki(), TlsServerOptions{.require_client_certificate = true});

  const HttpResult without = Post(*MakeClient(server.Url("/events"), WithCa()));
  EXPECT_TRUE(without.error);
  EXPECT_EQ(server.RequestCount(), 0u);

  TlsConfig mtls = WithCa();
  mtls.cert_file = client_cert_;
  mtls.key_file = client_key_;
  const HttpResult with = Post(*MakeClient(server.Url("/events"), mtls));
  ASSERT_FALSE(with.error) << with.error.message();
  ASSERT_EQ(server.RequestCount(), 1u);
  EXPECT_EQ(server.Requests()[0].client_common_name, "rayagg-test-client");
}

TEST_F(HttpsClientTest, InsecureSkipVerifyAcceptsAnUnknownCertificate) {
  TestTlsServer server(Pki());
  TlsConfig insecure{.server_name = "wrong.example", .insecure_skip_verify = true};
  const HttpResult result = Post(*MakeClient(server.Url("/events"), insecure));
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(server.RequestCount(), 1u);
}

TEST_F(HttpsClientTest, HandshakeHasADeadline) {
  // Accepts TCP connections (the kernel completes them from the backlog) but
  // never answers the ClientHello.
  asio::ip::tcp::acceptor silent(io_context_, {asio::ip::make_address("127.0.0.1"), 0});
  const std::string url = "https://127.0.0.1:" + std::to_string(silent.local_endpoint().port());
  auto client = MakeClient(url, WithCa(), 200ms);
  // Nothing ever answers: only the deadline can end the call.
  const HttpResult result = Post(*client);
  EXPECT_EQ(result.error, asio::error::timed_out) << result.error.message();
}

TEST_F(HttpsClientTest, BadFilesAreConfigErrorsNamingTheKey) {
  absl::StatusOr<HttpClientTls> missing_ca =
      rayagg::MakeHttpClientTls(TlsConfig{.ca_file = dir_.Path("absent.pem")});
  ASSERT_FALSE(missing_ca.ok());
  EXPECT_NE(std::string(missing_ca.status().message()).find("tls.ca_file"), std::string::npos);

  absl::StatusOr<HttpClientTls> mismatched = rayagg::MakeHttpClientTls(
      TlsConfig{.cert_file = client_cert_, .key_file = dir_.Write("other.key", Pki().server_key)});
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(std::string(mismatched.status().message()).find("tls.key_file"), std::string::npos);
}

}  // namespace
