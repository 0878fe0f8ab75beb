#include "support/test_certificates.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rayagg::test {
namespace {

struct Deleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  void operator()(X509* cert) const { X509_free(cert); }
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter>;
using Cert = std::unique_ptr<X509, Deleter>;
using Bio = std::unique_ptr<BIO, Deleter>;

void Check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenSSL failed: ") + what);
}

Key NewKey() {
  Key key(EVP_EC_gen("P-256"));
  Check(key != nullptr, "EVP_EC_gen");
  return key;
}

// Adds a v3 extension given in openssl.cnf syntax, e.g. "CA:TRUE".
void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  Check(extension != nullptr, "X509V3_EXT_conf_nid");
  const bool added = X509_add_ext(cert, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  Check(added, "X509_add_ext");
}

// A certificate for `key` named `common_name`, signed by `issuer_key`
// (`issuer` null: self-signed) and carrying `extensions`.
Cert NewCert(EVP_PKEY* key, const char* common_name, X509* issuer, EVP_PKEY* issuer_key,
             long serial, const std::vector<std::pair<int, const char*>>& extensions) {
  Cert cert(X509_new());
  Check(cert != nullptr, "X509_new");
  Check(X509_set_version(cert.get(), 2) == 1, "X509_set_version");  // v3
  Check(ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial) == 1, "serial");
  Check(X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr, "notBefore");
  Check(X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600) != nullptr, "notAfter");
  X509_NAME* name = X509_get_subject_name(cert.get());
  Check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name), -1, -1,
                                   0) == 1,
        "CN");
  X509* signer = issuer != nullptr ? issuer : cert.get();
  Check(X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)) == 1, "issuer");
  Check(X509_set_pubkey(cert.get(), key) == 1, "X509_set_pubkey");
  for (const auto& [nid, value] : extensions) AddExtension(cert.get(), signer, nid, value);
  Check(X509_sign(cert.get(), issuer_key, EVP_sha256()) > 0, "X509_sign");
  return cert;
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

std::string CertPem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  Check(bio != nullptr && PEM_write_bio_X509(bio.get(), cert) == 1, "PEM_write_bio_X509");
  return BioText(bio.get());
}

std::string KeyPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  Check(bio != nullptr &&
            PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM_write_bio_PrivateKey");
  return BioText(bio.get());
}

Cert NewCa(EVP_PKEY* key, const char* common_name, long serial) {
  return NewCert(key, common_name, nullptr, key, serial,
                 {{NID_basic_constraints, "critical,CA:TRUE"},
                  {NID_key_usage, "critical,keyCertSign,cRLSign"},
                  {NID_subject_key_identifier, "hash"}});
}

}  // namespace

TestCertificates MakeTestCertificates() {
  TestCertificates pki;
  const Key ca_key = NewKey();
  const Cert ca = NewCa(ca_key.get(), "rayagg test CA", 1);
  pki.ca_cert = CertPem(ca.get());

  const Key server_key = NewKey();
  const Cert server = NewCert(server_key.get(), "localhost", ca.get(), ca_key.get(), 2,
                              {{NID_basic_constraints, "critical,CA:FALSE"},
                               {NID_key_usage, "critical,digitalSignature"},
                               {NID_ext_key_usage, "serverAuth"},
                               {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                               {NID_authority_key_identifier, "keyid"}});
  pki.server_cert = CertPem(server.get());
  pki.server_key = KeyPem(server_key.get());

  const Key client_key = NewKey();
  const Cert client = NewCert(client_key.get(), "rayagg-test-client", ca.get(), ca_key.get(), 3,
                              {{NID_basic_constraints, "critical,CA:FALSE"},
                               {NID_key_usage, "critical,digitalSignature"},
                               {NID_ext_key_usage, "clientAuth"},
                               {NID_authority_key_identifier, "keyid"}});
  pki.client_cert = CertPem(client.get());
  pki.client_key = KeyPem(client_key.get());

  const Key other_key = NewKey();
  pki.other_ca_cert = CertPem(NewCa(other_key.get(), "unrelated test CA", 4).get());
  return pki;
}

}  // namespace rayagg::test
