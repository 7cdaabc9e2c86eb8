# all-MiniLM-L6-v2's embeddings of the stored sentences have the same bits at 1 and 2 threads and
# at VECTOR_BITS 256 and 512 (docs/contracts.md, contract 3): the minilm program runs once per
# setting, each in a new process (the settings are read once per process), and the .npy files it
# writes are compared byte for byte. Prints "SKIPPED:" when the model is not in the cache.
#   cmake -DMINILM=<program> -DSENTENCES=<file> -DWORK_DIR=<folder> -P minilm_bits_test.cmake
if(DEFINED ENV{TENSORJIT_MINILM_DIR} AND NOT "$ENV{TENSORJIT_MINILM_DIR}" STREQUAL "")
  set(model $ENV{TENSORJIT_MINILM_DIR})
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(model $ENV{XDG_CACHE_HOME}/tensorjit/all-MiniLM-L6-v2)
else()
  set(model $ENV{HOME}/.cache/tensorjit/all-MiniLM-L6-v2)
endif()
if(NOT EXISTS ${model}/model.safetensors OR NOT EXISTS ${model}/tokenizer.json)
  message("SKIPPED: needs all-MiniLM-L6-v2 (scripts/fetch_minilm.sh)")
  return()
endif()

file(MAKE_DIRECTORY ${WORK_DIR})
set(first "")
foreach(bits 512 256)
  foreach(threads 1 2)
    set(out ${WORK_DIR}/embeddings_${bits}_${threads}.npy)
    file(REMOVE ${out})
    execute_process(COMMAND ${CMAKE_COMMAND} -E env VECTOR_BITS=${bits} TENSORJIT_THREADS=${threads}
        TENSORJIT_CACHE_DIR=${WORK_DIR}/kernel-cache
      ${MINILM} --model ${model} --input ${SENTENCES} --output ${out}
      RESULT_VARIABLE result ERROR_VARIABLE err)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "minilm at VECTOR_BITS=${bits} TENSORJIT_THREADS=${threads} failed (exit ${result}):\n${err}")
    endif()
    message(STATUS "VECTOR_BITS=${bits} TENSORJIT_THREADS=${threads}: ${err}")
    if(first STREQUAL "")
      set(first ${out})
    else()
      execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${first} ${out} RESULT_VARIABLE differ)
      if(NOT differ EQUAL 0)
        message(FATAL_ERROR "the embeddings at VECTOR_BITS=${bits} TENSORJIT_THREADS=${threads} (${out}) differ from ${first}")
      endif()
    endif()
  endforeach()
endforeach()
