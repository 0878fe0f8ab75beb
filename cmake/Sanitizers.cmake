# Applies RAYAGG_SANITIZE (e.g. "address,undefined") to every target, generated
# code included, so ASan sees all allocations.
if(RAYAGG_SANITIZE)
  add_compile_options(-fsanitize=${RAYAGG_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${RAYAGG_SANITIZE})
endif()
