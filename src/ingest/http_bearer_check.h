// http_ingest.bearer_token_file's check: lets a request on only if it
// carries "Authorization: Bearer <token>". Runs on the header, so a request
// without the token is refused (401) before its body is read. Not Ray's auth
// (RAY_AUTH_MODE): Ray's HTTP publisher sends no Authorization header.
#pragma once

#include <string>

#include "absl/base/thread_annotations.h"
#include "http/http_server.h"
#include "ingest/bearer_token_checker.h"
#include "rayagg/mutex.h"

namespace rayagg {

// The token can be replaced while the listener runs (SIGHUP re-reads the
// file): every header checked after SetToken() returns needs the new token.
// Keeps only the token's digest (BearerTokenChecker). Thread-safe.
class HttpBearerCheck {
 public:
  // An empty token lets every request on (no check).
  explicit HttpBearerCheck(const std::string& token);
  HttpBearerCheck(const HttpBearerCheck&) = delete;
  HttpBearerCheck& operator=(const HttpBearerCheck&) = delete;

  void SetToken(const std::string& token);
  bool Allows(const HttpRequest::header_type& header) const;

  // For HttpServer::AddAsyncRoute; refers to this object, which must
  // outlive the server.
  HttpHeaderCheck AsHeaderCheck() const;

 private:
  static BearerTokenChecker CheckerFor(const std::string& token);

  mutable Mutex mutex_;
  BearerTokenChecker checker_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg
