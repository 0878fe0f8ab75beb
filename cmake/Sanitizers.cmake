# Applies RAYAGG_SANITIZE (e.g. "address,undefined") to every target, generated
# code included, so ASan sees all allocations.
if(RAYAGG_SANITIZE)
  add_compile_options(-fsanitize=${RAYAGG_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${RAYAGG_SANITIZE})
endif()
# clang 14's -fsanitize=function (part of "undefined") cannot place its
# prologue data in the split functions of a coroutine: every file with an Asio
# coroutine fails with "Cannot represent a difference across sections".
if(RAYAGG_SANITIZE MATCHES "undefined" AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-fno-sanitize=function)
endif()
