// What the HTTP client (the sinks' POSTs) and HttpConnection (S3's
// exchanges) both need to read one response: one error for a passed
// deadline, the number of interim responses tolerated, and which errors mean
// the server closed an idle keep-alive connection (worth one retry on a new one).
#pragma once

#include <boost/asio/ssl/error.hpp>

#include "rayagg/asio.h"

namespace rayagg {

// One error value for "deadline passed", whichever layer noticed it.
inline boost::system::error_code NormalizeTimeout(boost::system::error_code ec) {
  if (ec == beast::error::timeout) return asio::error::timed_out;
  return ec;
}

// Interim (1xx) responses tolerated before the final one.
inline constexpr int kMaxInterimResponses = 8;

// How a write or read fails on a connection the server closed while idle.
inline bool IsStaleConnectionError(const boost::system::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted || ec == asio::error::not_connected ||
         ec == asio::ssl::error::stream_truncated;  // TLS peer closed without close_notify
}

}  // namespace rayagg
