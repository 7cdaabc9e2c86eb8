# Every variable of the environment set to a value it does not take, all at once, in a fresh
# process (README, "Environment"): the program runs, computes what it computes with no variable
# set, and says each bad variable once on stderr, naming it. The folders (TENSORJIT_DUMP,
# TENSORJIT_CACHE_DIR) are paths under a regular file, which cannot be folders.
function(run_probe out_var err_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ARGN} ${PROBE}
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the probe failed (${result}) with ${ARGN}:\n${out}\n${err}")
  endif()
  string(REGEX MATCH "checksum=[^\n]*" checksum "${out}")
  set(${out_var} "${checksum}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/a-file "")
run_probe(expected unused --unset=VECTOR_BITS --unset=TENSORJIT_VECTOR_BITS --unset=TENSORJIT_THREADS
  --unset=TENSORJIT_LOG --unset=TENSORJIT_DUMP --unset=TENSORJIT_CACHE_DIR --unset=TENSORJIT_TIERED
  --unset=TENSORJIT_SPIN_US --unset=TENSORJIT_STREAMING_MB --unset=TENSORJIT_BUFFER_CACHE_MB)
set(bad VECTOR_BITS=300 TENSORJIT_VECTOR_BITS=wide TENSORJIT_THREADS=0 TENSORJIT_LOG=loud
  TENSORJIT_TIERED=yes TENSORJIT_SPIN_US=2000000 TENSORJIT_STREAMING_MB=16MB TENSORJIT_BUFFER_CACHE_MB=-1
  TENSORJIT_DUMP=${WORK_DIR}/a-file/dumps TENSORJIT_CACHE_DIR=${WORK_DIR}/a-file/cache)
run_probe(actual err ${bad})
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "with every variable bad the probe printed '${actual}', with none '${expected}'")
endif()
string(REPLACE ";" "," err_lines "${err}")
string(REPLACE "\n" ";" err_lines "${err_lines}")
# The value warnings name the variable at the start ("TENSORJIT_THREADS='0' is ignored"), the
# folder warnings the folder.
foreach(assignment ${bad})
  string(REGEX REPLACE "=.*" "" name "${assignment}")
  string(REGEX REPLACE "^[^=]*=" "" value "${assignment}")
  if(name MATCHES "DUMP|CACHE_DIR")
    set(said "${value}")
  else()
    set(said "] ${name}='${value}' is ignored")
  endif()
  set(count 0)
  foreach(line ${err_lines})
    string(FIND "${line}" "${said}" at)
    if(NOT at EQUAL -1)
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "${name}: expected one line with '${said}' on stderr, found ${count}:\n${err}")
  endif()
endforeach()
message(STATUS "${actual}\n${err}")
