function(probe expected_pattern)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TENSORJIT_CACHE_DIR=${CACHE_DIR} ${PROBE}
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0 OR NOT out MATCHES "${expected_pattern}")
    message(FATAL_ERROR "expected '${expected_pattern}', the probe printed '${out}' (exit ${result})\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

file(REMOVE_RECURSE ${CACHE_DIR})
probe("compiles=[1-9][0-9]* disk_hits=0 ")   # cold: compiles and writes the cache
probe("compiles=0 disk_hits=[1-9]")          # warm: a new process compiles nothing
file(GLOB_RECURSE entries ${CACHE_DIR}/*)
list(LENGTH entries count)
if(count EQUAL 0)
  message(FATAL_ERROR "the cache folder ${CACHE_DIR} is empty after a cold run")
endif()
foreach(entry ${entries})
  file(WRITE ${entry} "not an object file")
endforeach()
probe("compiles=[1-9][0-9]* disk_hits=0 disk_rejects=[1-9]")  # corrupt: ignored, recompiled
probe("compiles=0 disk_hits=[1-9]")                            # and rewritten
