# The POSIX port: threads, synchronisation, queues, timers, processes and
# test isolation (this directory). What it needs beyond POSIX (posix_os.h)
# comes from the Linux extras on Linux, from their absent versions
# (not_linux/) on any other POSIX system. The measuring clock is the CPU's
# counter, with CLOCK_MONOTONIC as its reference and fallback.
rtg_port_sources(.)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  rtg_port_uses(linux)
else()
  rtg_port_sources(not_linux)
  rtg_port_uses(none/trace.c)
endif()
rtg_port_uses(cpu_counter)
rtg_port_libraries(Threads::Threads rt)
