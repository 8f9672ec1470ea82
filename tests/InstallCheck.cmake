# cmake -DBUILD_DIR=... -DPREFIX=... -DHAVE_CAPTURE=ON|OFF
#       [-DPACKAGE_PYTHON=... -DPYTHON_DIR=... -DTRACE=...] -P InstallCheck.cmake
#
# Installs the build into a fresh PREFIX and checks the installed tracelint:
# it runs, the fan-out scripts under PREFIX/share/tracelint/fanout run it,
# where capture is built `capture` hands the program the capture library
# installed under PREFIX/lib/tracelint, and the Python package installed
# under PREFIX/PYTHON_DIR imports and runs PREFIX/bin/tracelint (not
# $TRACELINT, not PATH) on TRACE.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}"
                        --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()

set(bin "${PREFIX}/bin/tracelint")
execute_process(COMMAND "${bin}" --version RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "tracelint")
  message(FATAL_ERROR "${bin} --version failed (${rc}): ${out}")
endif()

# The fan-out scripts are installed and run the installed binary.
get_filename_component(real_prefix "${PREFIX}" REALPATH)
foreach(script xargs.sh slurm.sh k8s.sh)
  set(path "${PREFIX}/share/tracelint/fanout/${script}")
  execute_process(COMMAND "${path}" --help RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "docs/multi-rank.md")
    message(FATAL_ERROR "${path} --help failed (${rc}): ${out}${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E env PATH=/usr/bin:/bin
                        "${PREFIX}/share/tracelint/fanout/xargs.sh" --dry-run
                        "${PREFIX}/summaries" a.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "${real_prefix}/bin/tracelint summarize a.json" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "the installed xargs.sh does not run the installed "
                      "tracelint (${rc}):\n${out}${err}")
endif()

set(lib "${PREFIX}/lib/tracelint/libtracelint-capture.so")
if(HAVE_CAPTURE)
  if(NOT EXISTS "${lib}")
    message(FATAL_ERROR "the capture library was not installed: ${lib}")
  endif()
  # `env` never initialises CUDA: exit 3, no trace; its output shows what
  # the launcher handed it.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env
                          --unset=TRACELINT_CAPTURE_LIBRARY
                          "${bin}" capture --no-lint
                          --trace-dir "${PREFIX}/traces" -- env
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 3)
    message(FATAL_ERROR "capture exited ${rc}, expected 3: ${err}")
  endif()
  string(FIND "${out}" "CUDA_INJECTION64_PATH=${lib}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "capture did not use ${lib}:\n${out}")
  endif()
elseif(EXISTS "${lib}")
  message(FATAL_ERROR "a capture library was installed without capture")
endif()
if(PACKAGE_PYTHON)
  set(package "${PREFIX}/${PYTHON_DIR}")
  if(NOT EXISTS "${package}/tracelint/__init__.py")
    message(FATAL_ERROR "the Python package was not installed in ${package}")
  endif()
  # TRACELINT names another executable: the binary beside the package wins.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env
                          "PYTHONPATH=${package}" TRACELINT=/bin/true
                          PYTHONDONTWRITEBYTECODE=1
                          "${PACKAGE_PYTHON}" -c
      "import sys, tracelint; print(tracelint.find_binary()); print(tracelint.lint(sys.argv[1]).steps)"
      "${TRACE}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "${bin}\n3\n")
    message(FATAL_ERROR "the installed Python package did not run ${bin} "
                        "on ${TRACE} (exit ${rc}):\n${out}${err}")
  endif()
endif()
message(STATUS "installed layout under ${PREFIX} works")
