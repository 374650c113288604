# The FreeRTOS port: the OSAL on the kernel's tasks, semaphores and queues,
# the C library's heap on FreeRTOS's, the runner's task, the kernel's hooks
# and the flight recorder on its trace hooks (this directory). The topics
# FreeRTOS has no equivalent for answer ENOTSUP (core/osal/none): each of
# those files but none/trace.c, whose place trace*.c here takes. The board
# (clocks, UART, timers, startup) is not here: core/boards/<board>/, whose
# build (core/boards/CMakeLists.txt) reads this file and builds the kernel.
# The measuring clock is the board's (clock.c).
rtg_port_sources(.)
rtg_port_uses(none/deadline.c none/load.c none/mem.c none/named.c none/proc.c none/rel_waits.c
              none/rwlock_barrier.c none/sig.c)
