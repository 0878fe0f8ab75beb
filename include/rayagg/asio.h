// The one place that includes Boost.Asio and Beast. Boost 1.74's awaitable.hpp
// uses std::exchange without including <utility>, which breaks g++ 12 unless
// <utility> comes first.
#pragma once

#include <utility>
// (keeps clang-format from sorting <utility> after Boost)
#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace rayagg {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
}  // namespace rayagg
