# A port names its own parts in core/osal/<name>/port.cmake, with the calls
# below; the probe's build (CMakeLists.txt) and the firmware's
# (core/boards/CMakeLists.txt) read it through rtg_port_load(<name>).
#
#   rtg_port_sources(<dir>...)    every .c of these directories of the port
#                                 ("." for its own): a new file needs no edit
#   rtg_port_uses(<part>...)      shared parts, directories of core/osal/
#                                 (or single files of them, none/proc.c):
#                                   none         the topics a port without POSIX
#                                                lacks, each call ENOTSUP, one
#                                                file per topic
#                                   linux        the POSIX port's Linux extras
#                                   cpu_counter  the measuring clock read from
#                                                the CPU's counter (TSC, Arm's
#                                                virtual counter), calibrated
#                                                against the port's rtg_mono_ns,
#                                                which is its fallback
#                                 (a port with a clock of its own, such as a
#                                 board's timer, has it among its sources)
#   rtg_port_libraries(<lib>...)  what the port links beyond the C library
#
# rtg_port_load sets RTG_PORT_SOURCES (the port's files, its shared parts,
# and core/osal/*.c, which every port shares), RTG_PORT_INCLUDE_DIRS (its
# include/, for rtg_osal_types.h), RTG_PORT_LIBRARIES and
# RTG_PORT_UNIT_SOURCES (the unit/test_*.c of the port and of the shared
# parts it uses, built only with it).
# Macros, not functions: what they set is the caller's.
get_filename_component(RTG_OSAL_ROOT ${CMAKE_CURRENT_LIST_DIR}/../core/osal ABSOLUTE)

macro(rtg_port_sources)
  foreach(_rtg_dir ${ARGN})
    get_filename_component(_rtg_abs ${RTG_PORT_DIR}/${_rtg_dir} ABSOLUTE)
    if(NOT IS_DIRECTORY ${_rtg_abs})
      message(FATAL_ERROR "core/osal/${RTG_PORT}/port.cmake: no directory '${_rtg_dir}' in the port")
    endif()
    file(GLOB _rtg_srcs CONFIGURE_DEPENDS ${_rtg_abs}/*.c)
    list(APPEND RTG_PORT_SOURCES ${_rtg_srcs})
  endforeach()
endmacro()

macro(rtg_port_uses)
  foreach(_rtg_part ${ARGN})
    if(IS_DIRECTORY ${RTG_OSAL_ROOT}/${_rtg_part})
      file(GLOB _rtg_srcs CONFIGURE_DEPENDS ${RTG_OSAL_ROOT}/${_rtg_part}/*.c)
      list(APPEND RTG_PORT_SOURCES ${_rtg_srcs})
      file(GLOB _rtg_srcs CONFIGURE_DEPENDS ${RTG_OSAL_ROOT}/${_rtg_part}/unit/test_*.c)
      list(APPEND RTG_PORT_UNIT_SOURCES ${_rtg_srcs})
    elseif(_rtg_part MATCHES "\\.c$" AND EXISTS ${RTG_OSAL_ROOT}/${_rtg_part})
      list(APPEND RTG_PORT_SOURCES ${RTG_OSAL_ROOT}/${_rtg_part})
    else()
      message(FATAL_ERROR "core/osal/${RTG_PORT}/port.cmake: no shared part core/osal/${_rtg_part}")
    endif()
  endforeach()
endmacro()

macro(rtg_port_libraries)
  list(APPEND RTG_PORT_LIBRARIES ${ARGN})
endmacro()

macro(rtg_port_load name)
  set(RTG_PORT ${name})
  set(RTG_PORT_DIR ${RTG_OSAL_ROOT}/${name})
  if(NOT EXISTS ${RTG_PORT_DIR}/port.cmake)
    message(FATAL_ERROR "RTG_OSAL=${name}: core/osal/${name}/port.cmake does not exist "
                        "(a port names its parts there: docs/porting.md)")
  endif()
  file(GLOB RTG_PORT_SOURCES CONFIGURE_DEPENDS ${RTG_OSAL_ROOT}/*.c)
  set(RTG_PORT_LIBRARIES "")
  set(RTG_PORT_UNIT_SOURCES "")
  set(RTG_PORT_INCLUDE_DIRS ${RTG_PORT_DIR}/include)
  include(${RTG_PORT_DIR}/port.cmake)
  list(REMOVE_DUPLICATES RTG_PORT_SOURCES)
  file(GLOB _rtg_units CONFIGURE_DEPENDS ${RTG_PORT_DIR}/unit/test_*.c)
  list(APPEND RTG_PORT_UNIT_SOURCES ${_rtg_units})
endmacro()
