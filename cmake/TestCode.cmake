# Test executables' own translation units (docs/TESTING.md, "Build time").
#
# They are most of what a cold build compiles: about 130 files, each of which
# parses GoogleTest, the standard library and, for many, gRPC, Asio and Beast
# again, and optimising test bodies buys nothing the tests check. So:
#   - they are compiled at -O0, whatever the preset's level: the code under
#     test (our libraries, the test-support libraries) keeps the preset's level,
#     so sanitizer and release runs still exercise optimised product code;
#   - they share one precompiled header (rayagg_test_pch) of the external
#     headers they read. A precompiled header is only usable by a compilation
#     with the optimisation level, sanitizers and macro definitions it was made
#     with (g++ would skip it and parse the headers again; CMake's
#     -Winvalid-pch with our -Werror makes that a build error, clang refuses it
#     anyway), so the anchor and every test get the same flags: the global
#     ones, rayagg_warnings(), -O0, -pthread, and the definitions spdlog, fmt
#     and Boost give their users (rayagg_test_flags).
option(RAYAGG_TEST_PCH "Test executables share a precompiled header" ON)

set(RAYAGG_TEST_PCH_HEADERS
  <algorithm> <atomic> <chrono> <cstdint> <deque> <filesystem> <fstream> <functional>
  <future> <map> <memory> <optional> <random> <set> <sstream> <string> <string_view>
  <thread> <utility> <vector>
  <gtest/gtest.h> <gmock/gmock.h>
  <nlohmann/json.hpp> <spdlog/spdlog.h>
  <absl/status/status.h> <absl/status/statusor.h>
  <google/protobuf/message.h> <google/protobuf/util/json_util.h>
  <grpcpp/grpcpp.h>
  # Asio and Beast, included the one way our code includes them.
  <rayagg/asio.h>)

# What the anchor and every test executable are compiled with.
add_library(rayagg_test_flags INTERFACE)
target_compile_options(rayagg_test_flags INTERFACE -O0 -pthread)
target_link_libraries(rayagg_test_flags INTERFACE spdlog::spdlog Boost::headers)

if(RAYAGG_TEST_PCH)
  add_library(rayagg_test_pch OBJECT EXCLUDE_FROM_ALL
    ${PROJECT_SOURCE_DIR}/tests/support/pch_anchor.cc)
  target_include_directories(rayagg_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(rayagg_test_pch PRIVATE rayagg_test_flags GTest::gtest GTest::gmock
    nlohmann_json::nlohmann_json absl::status absl::statusor protobuf::libprotobuf)
  target_precompile_headers(rayagg_test_pch PRIVATE ${RAYAGG_TEST_PCH_HEADERS})
  rayagg_warnings(rayagg_test_pch)
endif()

# Applies the above to one test executable.
function(rayagg_test_code target)
  target_link_libraries(${target} PRIVATE rayagg_test_flags)
  if(RAYAGG_TEST_PCH)
    target_precompile_headers(${target} REUSE_FROM rayagg_test_pch)
  endif()
endfunction()
