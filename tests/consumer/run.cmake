# ctest Install.ConsumerFindsPackage: installs BUILD_DIR into a temporary prefix, configures and
# builds tests/consumer/ against it with find_package(judgestat), and runs it on bundled data:
# o1-mini's order-0 accuracy, 248 of 350, by run_metrics, run_analysis and a study (main.cpp).
set(work ${BUILD_DIR}/consumer-test)
file(REMOVE_RECURSE ${work})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${work}/prefix --component Unspecified)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${work}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${work}/build)
run(${work}/build/consumer ${SOURCE_DIR} ${work})
if(NOT last_output MATCHES "^run_metrics 248/350 run_analysis 248/350 run_study 248/350 computed 1\n$")
  message(FATAL_ERROR "unexpected consumer output: ${last_output}")
endif()
message(STATUS "consumer: ${last_output}")
file(REMOVE_RECURSE ${work})
