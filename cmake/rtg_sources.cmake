# The probe's own sources, for both builds: the probe's (CMakeLists.txt)
# and the firmware's (core/osal/freertos/CMakeLists.txt). The port's are
# named by its port.cmake (cmake/rtg_port.cmake).
get_filename_component(RTG_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

# The base: statistics, histogram, blocks, metrics, the JSON writer. Pure
# computation, no OS and no OSAL: the probe, the port and the unit tests
# build on it.
set(RTG_BASE_SOURCES
  ${RTG_ROOT}/core/src/stats.c ${RTG_ROOT}/core/src/hist.c ${RTG_ROOT}/core/src/json.c
  ${RTG_ROOT}/core/src/metric.c ${RTG_ROOT}/core/src/blocks.c ${RTG_ROOT}/core/src/stop.c
  ${RTG_ROOT}/core/src/sys_facts.c)

# The probe's private part: every other file of core/src (command line,
# registry, contexts, runner policy, system record), portable C, but the
# entry point main.c (a board has its own).
file(GLOB RTG_PROBE_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/src/*.c)
list(REMOVE_ITEM RTG_PROBE_SOURCES ${RTG_BASE_SOURCES} ${RTG_ROOT}/core/src/main.c)

# The catalogue: every test, one file per id, with its family's helpers and
# core/catalogue/common/; the test-only hooks (dbg/) go into the hooks build.
file(GLOB RTG_CATALOGUE_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/catalogue/*/*.c)
list(FILTER RTG_CATALOGUE_SOURCES EXCLUDE REGEX "/core/catalogue/dbg/")
file(GLOB RTG_DBG_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/catalogue/dbg/*.c)
