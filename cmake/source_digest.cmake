# cmake -DLIST=<file of source paths, one per line> -DOUTPUT=<header> -P source_digest.cmake
# Writes `#define TENSORJIT_CODEGEN_DIGEST "<sha256>"` over the listed files' names and contents
# (the disk cache's identity: a kernel cached by other code generator sources is not reused).
# The header is rewritten only when the digest changes, so an unchanged digest rebuilds nothing.
file(STRINGS "${LIST}" sources)
list(SORT sources)
set(text "")
foreach(source IN LISTS sources)
  file(SHA256 "${source}" digest)
  get_filename_component(name "${source}" NAME)
  string(APPEND text "${name} ${digest}\n")
endforeach()
string(SHA256 digest "${text}")
set(header "#define TENSORJIT_CODEGEN_DIGEST \"${digest}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL header)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${header}")
