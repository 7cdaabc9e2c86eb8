# tensorjit-dump on a graph it cannot run: exit status 1, a message matching EXPECT on stderr,
# and no tensorjit-dump-<pid> folder left in its temporary directory (TMPDIR, fresh for the run).
file(REMOVE_RECURSE ${TMP})
file(MAKE_DIRECTORY ${TMP})
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${TMP} ${DUMP} ${args}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT result EQUAL 1)
  message(FATAL_ERROR "expected exit status 1, got '${result}'\n${out}\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
file(GLOB left ${TMP}/tensorjit-dump-*)
if(left)
  message(FATAL_ERROR "a failed run left ${left} behind")
endif()
file(REMOVE_RECURSE ${TMP})
