/* ARM semihosting through QEMU (-semihosting-config enable=on): the
 * command line given with arg=..., and leaving QEMU with an exit code. */
#include <stdint.h>
#include <string.h>

#include "board.h"

#define SYS_GET_CMDLINE 0x15
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static int semihost(int op, void *arg)
{
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

int board_cmdline(char *buf, size_t len)
{
    uint32_t block[2] = {(uint32_t)(uintptr_t)buf, (uint32_t)len};
    if (semihost(SYS_GET_CMDLINE, block) != 0)
        return -1;
    buf[len - 1] = '\0';
    return 0;
}

void board_exit(int code)
{
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    for (;;)
        semihost(SYS_EXIT_EXTENDED, block);
}
