// A throwaway PKI made at test time with the OpenSSL API: a CA, a server
// certificate for localhost / 127.0.0.1 and a client certificate, both
// signed by that CA, plus an unrelated CA. Nothing is committed, nothing
// needs the openssl command-line tool. All PEM text.
#pragma once

#include <string>

namespace rayagg::test {

struct TestCertificates {
  std::string ca_cert;      // the CA that signed server_* and client_*
  std::string server_cert;  // CN=localhost, SAN DNS:localhost, IP:127.0.0.1
  std::string server_key;
  std::string client_cert;  // CN=rayagg-test-client, extendedKeyUsage clientAuth
  std::string client_key;
  std::string other_ca_cert;  // a CA that signed nothing here
};

// P-256 keys, SHA-256 signatures, valid from an hour ago for a day. Throws
// std::runtime_error if OpenSSL fails.
TestCertificates MakeTestCertificates();

}  // namespace rayagg::test
