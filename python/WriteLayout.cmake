# Included by `cmake --install` (python/CMakeLists.txt): writes the installed
# package's _layout.py, the relative path from the package folder to
# PREFIX/bin/tracelint, which tracelint.find_binary() tries first. Relative,
# so that a staged (DESTDIR) or moved prefix keeps working.
if(IS_ABSOLUTE "${TRACELINT_PYTHON_INSTALL_DIR}")
  set(_package "${TRACELINT_PYTHON_INSTALL_DIR}/tracelint")
else()
  set(_package "${CMAKE_INSTALL_PREFIX}/${TRACELINT_PYTHON_INSTALL_DIR}/tracelint")
endif()
file(RELATIVE_PATH _binary "${_package}" "${CMAKE_INSTALL_PREFIX}/bin/tracelint")
set(_file "$ENV{DESTDIR}${_package}/_layout.py")
message(STATUS "Installing: ${_file}")
file(WRITE "${_file}"
  "# Written by `cmake --install`: where the binary installed with this\n"
  "# package is, relative to the package folder.\n"
  "BINARY_FROM_PACKAGE = \"${_binary}\"\n")
