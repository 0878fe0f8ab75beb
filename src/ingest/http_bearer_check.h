// http_ingest.bearer_token_file's check: an HttpHeaderCheck that lets a
// request on only if it carries "Authorization: Bearer <token>". Runs on the
// header, so a request without the token is refused (401) before its body is
// read. Not Ray's auth (RAY_AUTH_MODE): Ray's HTTP publisher sends no
// Authorization header.
#pragma once

#include <string>

#include "http/http_server.h"

namespace rayagg {

// `token` must not be empty. The check keeps only the token's digest
// (BearerTokenChecker) and is thread-safe.
HttpHeaderCheck MakeBearerHeaderCheck(const std::string& token);

}  // namespace rayagg
