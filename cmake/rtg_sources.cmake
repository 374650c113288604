# The probe's own sources, for both builds: the probe's (CMakeLists.txt)
# and the firmware's (core/boards/CMakeLists.txt). The port's are named by
# its port.cmake (cmake/rtg_port.cmake).
get_filename_component(RTG_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

# core/src/ is two layers, one folder each, with the OSAL between them.
# The base (core/src/base/): statistics, histogram, blocks, metrics, the
# JSON writer, the stop flag, the system facts' helpers. Pure computation in
# ISO C, below the OSAL: the probe, the port and the unit tests build on it,
# and it includes no header of the OSAL or of the runner
# (tests/unit/test_core_layers.py). Its headers are public (core/include/rtg/).
file(GLOB RTG_BASE_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/src/base/*.c)

# The runner (core/src/runner/), above the OSAL: command line, registry,
# contexts, runner policy, the records, portable C; its private headers in
# core/src/runner/include/rtg_private/. All but the entry point main.c (a
# board has its own).
set(RTG_RUNNER_INCLUDE_DIR ${RTG_ROOT}/core/src/runner/include)
set(RTG_PROBE_MAIN ${RTG_ROOT}/core/src/runner/main.c)
file(GLOB RTG_PROBE_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/src/runner/*.c)
list(REMOVE_ITEM RTG_PROBE_SOURCES ${RTG_PROBE_MAIN})

# The catalogue: every test, one file per id, with its family's helpers and
# core/catalogue/common/; the test-only hooks (dbg/) go into the hooks build.
file(GLOB RTG_CATALOGUE_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/catalogue/*/*.c)
list(FILTER RTG_CATALOGUE_SOURCES EXCLUDE REGEX "/core/catalogue/dbg/")
file(GLOB RTG_DBG_SOURCES CONFIGURE_DEPENDS ${RTG_ROOT}/core/catalogue/dbg/*.c)
