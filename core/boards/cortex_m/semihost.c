/* The end of a run. Under QEMU (-semihosting-config enable=on, and the
 * host says so on the command line) the exit code leaves QEMU through ARM
 * semihosting. On silicon there is nobody to exit to, and a semihosting
 * call without a debugger attached would fault: the board stops there,
 * interrupts off, until the host resets it (it has read EXIT or RESTART on
 * the console by then). */
#include <stdint.h>

#include "board.h"

#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static bool semihosting;

void board_use_semihosting(bool on) { semihosting = on; }

static int semihost(int op, void *arg)
{
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void board_exit(int code)
{
    __asm__ volatile("cpsid i" ::: "memory");
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    for (;;) {
        if (semihosting)
            semihost(SYS_EXIT_EXTENDED, block);
        __asm__ volatile("wfi");
    }
}
