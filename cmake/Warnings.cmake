# Strict warnings for our own targets only; generated and third-party code is
# included as SYSTEM and never sees these flags.
function(rayagg_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wnon-virtual-dtor -Woverloaded-virtual -Wimplicit-fallthrough)
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

# Declares one of our static libraries from the .cc files of the calling directory.
function(rayagg_library name)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  rayagg_warnings(${name})
endfunction()

# Declares one GoogleTest executable per *_test.cc file of the calling directory,
# linked against the given libraries.
function(rayagg_tests)
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  foreach(test_source ${tests})
    get_filename_component(test_name ${test_source} NAME_WE)
    add_executable(${test_name} ${test_source})
    target_link_libraries(${test_name} PRIVATE ${ARGN} GTest::gtest GTest::gtest_main GTest::gmock)
    target_include_directories(${test_name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
    rayagg_warnings(${test_name})
    add_test(NAME ${test_name} COMMAND ${test_name})
    set_tests_properties(${test_name} PROPERTIES TIMEOUT 300)
  endforeach()
endfunction()
