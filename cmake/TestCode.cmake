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
#     Under g++ only the files that read gRPC, Boost or protobuf headers (most
#     integration tests) use it: g++ loads the whole 400 MB header whatever a
#     file needs, about 2 CPU seconds, more than a test that reads GoogleTest
#     and our light headers spends parsing them (url_test.cc: 3.0 s of CPU
#     without, 5.4 s with). clang loads a precompiled header lazily, so there
#     every test file uses it.
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

# Sets <out> to whether <file> reaches, through the quoted includes of our own
# sources, a header of gRPC, Boost, protobuf or a generated .pb.h: the headers
# that make the precompiled one pay under g++. Results are cached per file for
# the configure run; a wrong answer would only cost build time.
function(rayagg_reads_heavy_headers file out)
  get_property(cached GLOBAL PROPERTY "rayagg_heavy:${file}" SET)
  if(cached)
    get_property(heavy GLOBAL PROPERTY "rayagg_heavy:${file}")
    set(${out} ${heavy} PARENT_SCOPE)
    return()
  endif()
  # Set before recursing, so an include cycle ends.
  set_property(GLOBAL PROPERTY "rayagg_heavy:${file}" OFF)
  set(heavy OFF)
  get_filename_component(file_dir ${file} DIRECTORY)
  file(STRINGS ${file} includes REGEX "^#include [<\"]")
  foreach(line IN LISTS includes)
    if(line MATCHES "[<\"](grpcpp/|boost/|google/protobuf/|rayagg/asio\\.h|[^\"]*\\.pb\\.h)")
      set(heavy ON)
      break()
    endif()
    if(NOT line MATCHES "^#include \"([^\"]+)\"")
      continue()
    endif()
    set(header ${CMAKE_MATCH_1})
    foreach(dir ${file_dir} ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include
                ${PROJECT_SOURCE_DIR}/tests)
      if(EXISTS ${dir}/${header})
        rayagg_reads_heavy_headers(${dir}/${header} header_heavy)
        if(header_heavy)
          set(heavy ON)
        endif()
        break()
      endif()
    endforeach()
    if(heavy)
      break()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "rayagg_heavy:${file}" ${heavy})
  set(${out} ${heavy} PARENT_SCOPE)
endfunction()

# Applies the above to one test executable.
function(rayagg_test_code target)
  target_link_libraries(${target} PRIVATE rayagg_test_flags)
  if(NOT RAYAGG_TEST_PCH)
    return()
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    set(heavy OFF)
    foreach(source IN LISTS sources)
      get_filename_component(source ${source} ABSOLUTE BASE_DIR ${source_dir})
      rayagg_reads_heavy_headers(${source} source_heavy)
      if(source_heavy)
        set(heavy ON)
      endif()
    endforeach()
    if(NOT heavy)
      return()
    endif()
  endif()
  target_precompile_headers(${target} REUSE_FROM rayagg_test_pch)
endfunction()
