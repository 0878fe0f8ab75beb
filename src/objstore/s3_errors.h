// What an S3 answer means for the caller (the table in docs/DELIVERY.md),
// as the status codes of include/rayagg/object_store.h with the error
// <Code> (or "http_<status>", "timeout", "connection", "tls") as reason.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "rayagg/asio.h"

namespace rayagg::s3 {

// An error answer: `status` is the HTTP status, `code` the <Code> of its
// body ("" when it had none), `what` names the operation and key prefix for
// the message ("PUT cluster-history/raycluster/...").
absl::Status ClassifyAnswer(unsigned status, std::string_view code, std::string_view what);

// A request that got no answer.
absl::Status ClassifyTransportError(const boost::system::error_code& error, std::string_view what);

}  // namespace rayagg::s3
