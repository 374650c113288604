# The ISO C11 port: threads of <threads.h>, nothing from POSIX (this
# directory). The topics a port without POSIX lacks answer ENOTSUP
# (core/osal/none). The measuring clock is the CPU's counter, calibrated
# against this port's monotonic time (TIME_UTC made monotone), its fallback.
rtg_port_sources(.)
rtg_port_uses(none cpu_counter)
rtg_port_libraries(Threads::Threads)
