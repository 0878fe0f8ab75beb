# Strict warnings for our own targets only; generated and third-party code is
# included as SYSTEM and never sees these flags.
function(rayagg_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Checks the ABSL_GUARDED_BY / ABSL_EXCLUSIVE_LOCKS_REQUIRED annotations
    # (every lock is a rayagg::Mutex, include/rayagg/mutex.h).
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # False positives of g++ 12 at -O2 and above: -Wmismatched-new-delete on
    # Asio's coroutine frame allocator (GCC PR 109224) and -Wrestrict inside
    # libstdc++'s std::string operator+ (GCC PR 105651).
    target_compile_options(${target} PRIVATE -Wno-mismatched-new-delete -Wno-restrict)
  endif()
  if(RAYAGG_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Unity build (docs/TESTING.md, "Build time"): a library's files are compiled
# in batches, each batch one translation unit, so the headers they share
# (Asio, Beast, gRPC, protobuf) are parsed, and the templates they share
# instantiated, once per batch instead of once per file.
function(rayagg_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${RAYAGG_UNITY_BUILD}
                                             UNITY_BUILD_BATCH_SIZE ${RAYAGG_UNITY_BATCH_SIZE})
  if(RAYAGG_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # g++ warns about a type from an anonymous namespace inside a type with
    # linkage when the namespace is not in the main file, which is meant for
    # headers; in a batch every .cc is an included file (and g++ 12 says it of
    # coroutine frames too). A build with RAYAGG_UNITY_BUILD=OFF still checks it.
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()

# Declares one of our static libraries from the .cc files of the calling directory.
# A library exports only include/ (the interfaces, include/rayagg/); src/ is on
# its own include path only, so a library may still use another's src/ header
# (the composition root does), but the executables, tests and benchmarks that
# reach into src/ say so themselves.
function(rayagg_library name)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  add_library(${name} STATIC ${sources})
  rayagg_unity_build(${name})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                                     PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # include/rayagg/mutex.h: the thread-safety annotations.
  target_link_libraries(${name} PUBLIC absl::core_headers)
  rayagg_warnings(${name})
endfunction()

# Declares one GoogleTest executable per *_test.cc file of the calling directory,
# linked against the given libraries:
#   rayagg_tests(<library>... [LABELS <label>...])
# Each test gets the label of its layer (unit, integration, e2e: the directory
# tests/<layer>/ it is in) and LABELS. Labels choose the CI legs
# (docs/TESTING.md):
#   slow  release leg only (real S3 server, browser, kill loops); every e2e
#         test is slow.
#   tsan  also built and run under ThreadSanitizer: the threaded pipeline
#         (event log, sinks, HTTP client and server). Never for a test that
#         starts a gRPC server or channel: Debian's gRPC is not built for TSan.
# Under TSan (RAYAGG_TSAN) only tsan tests are declared to ctest and built by
# default; the others stay buildable by name.
function(rayagg_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "LABELS")
  set(labels ${RAYAGG_TEST_LAYER} ${arg_LABELS})
  if(RAYAGG_TEST_LAYER STREQUAL "e2e")
    list(APPEND labels slow)
  endif()
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  foreach(test_source ${tests})
    get_filename_component(test_name ${test_source} NAME_WE)
    add_executable(${test_name} ${test_source})
    target_link_libraries(${test_name} PRIVATE ${arg_UNPARSED_ARGUMENTS} GTest::gtest
                                               GTest::gtest_main GTest::gmock)
    target_include_directories(${test_name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
    rayagg_warnings(${test_name})
    rayagg_test_code(${test_name})
    if(RAYAGG_TSAN AND NOT "tsan" IN_LIST labels)
      set_target_properties(${test_name} PROPERTIES EXCLUDE_FROM_ALL ON)
      continue()
    endif()
    add_test(NAME ${test_name} COMMAND ${test_name})
    # A guard against hangs, not a speed limit (docs/TESTING.md): a test that
    # takes 100 s on a quiet machine takes 5+ minutes under ASan on a loaded one.
    set_tests_properties(${test_name} PROPERTIES TIMEOUT 1800 LABELS "${labels}")
  endforeach()
endfunction()
