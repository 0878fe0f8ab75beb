// The light part of rayagg/asio.h: what an interface needs to return
// asio::awaitable<T> or take an executor, without all of Asio and Beast.
// Files that only declare or call such interfaces (clocks, object stores,
// batch transports, their planners and rules) then skip parsing the rest,
// about two CPU seconds per file under g++ -O3 in every build leg
// (docs/TESTING.md, "Build time"). Code that runs I/O includes rayagg/asio.h.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>,
// which breaks g++ 12 unless <utility> comes first.
#pragma once

#include <utility>
// (keeps clang-format from sorting <utility> after Boost)
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

namespace rayagg {
namespace asio = boost::asio;
}  // namespace rayagg
