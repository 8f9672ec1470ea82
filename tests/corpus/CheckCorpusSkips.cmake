# cmake -DBUILD_DIR=... -DCTEST=... -DEMPTY_DIR=... -P CheckCorpusSkips.cmake
#
# Without ../shared/traces the corpus tests must say "skipped" to CTest, not
# "Passed" after checking nothing. For every test labelled "corpus" (as
# `ctest --show-only=json-v1` lists it, without running anything), checks
# that CTest takes exit code 77 as a skip (SKIP_RETURN_CODE) and that the
# test's command, run with TRACELINT_TRACES naming an empty folder, exits
# 77.
file(REMOVE_RECURSE "${EMPTY_DIR}")
file(MAKE_DIRECTORY "${EMPTY_DIR}")
execute_process(COMMAND "${CTEST}" --test-dir "${BUILD_DIR}" -L "^corpus$"
                        --show-only=json-v1
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest --show-only failed (${rc}): ${err}")
endif()
string(JSON count LENGTH "${json}" tests)
if(count EQUAL 0)
  message(FATAL_ERROR "no test carries the label 'corpus'")
endif()
math(EXPR last "${count} - 1")
set(problems "")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" tests ${i} name)
  set(skip_code "")
  string(JSON nprops ERROR_VARIABLE none LENGTH "${json}" tests ${i} properties)
  if(nprops GREATER 0)
    math(EXPR plast "${nprops} - 1")
    foreach(p RANGE ${plast})
      string(JSON pname GET "${json}" tests ${i} properties ${p} name)
      if(pname STREQUAL "SKIP_RETURN_CODE")
        string(JSON skip_code GET "${json}" tests ${i} properties ${p} value)
      endif()
    endforeach()
  endif()
  if(NOT skip_code STREQUAL "77")
    string(APPEND problems "  ${name}: SKIP_RETURN_CODE is '${skip_code}', not 77\n")
  endif()
  string(JSON nargs LENGTH "${json}" tests ${i} command)
  math(EXPR alast "${nargs} - 1")
  set(command "")
  foreach(a RANGE ${alast})
    string(JSON arg GET "${json}" tests ${i} command ${a})
    list(APPEND command "${arg}")
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env
                          "TRACELINT_TRACES=${EMPTY_DIR}" ${command}
                  RESULT_VARIABLE test_rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT test_rc STREQUAL "77")
    string(APPEND problems
           "  ${name}: exited ${test_rc} without traces, not 77:\n${out}\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "corpus tests that would not report a skip:\n${problems}")
endif()
message(STATUS "${count} corpus tests report a skip without the traces")
