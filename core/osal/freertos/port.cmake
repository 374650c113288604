# The FreeRTOS port on QEMU's MPS2 AN385 board: the OSAL on the kernel's
# tasks, semaphores and queues (this directory), the board (board/: vector
# table, UART, timers, semihosting, fault handlers) and the firmware's entry
# (fw/main.c). The topics FreeRTOS has no equivalent for answer ENOTSUP
# (core/osal/none). The measuring clock is its own: the board's TIMER1
# (clock.c). Read by the firmware's build (CMakeLists.txt here); the kernel
# itself is built there.
rtg_port_sources(. board fw)
rtg_port_uses(none)
