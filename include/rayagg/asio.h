// The one place that includes all of Boost.Asio and Beast (interfaces that
// only return awaitables include the light rayagg/awaitable.h).
#pragma once

#include "rayagg/awaitable.h"
// (keeps clang-format from sorting our header after Boost's)
#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace rayagg {
namespace beast = boost::beast;
namespace http = boost::beast::http;
}  // namespace rayagg
