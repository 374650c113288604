/* The MPS2 AN385 board as QEMU models it (-machine mps2-an385): a
 * Cortex-M3 at 25 MHz, CMSDK UART0 and CMSDK timers, semihosting for the
 * command line and the exit code. */
#ifndef RTG_FR_BOARD_H
#define RTG_FR_BOARD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOARD_NAME "mps2-an385"
#define BOARD_CPU "cortex-m3"
#define BOARD_SYSCLK_HZ 25000000u

/* UART0: polled output of the framed record lines. */
void board_uart_init(void);
void board_uart_write(const char *p, size_t n);

/* TIMER1 runs free as the measuring clock: 25 MHz, extended to 64 bits. */
void board_counter_init(void);
uint64_t board_counter_ticks(void);

/* TIMER0 raises IRQ 8 first_ticks from now, then every period_ticks of
 * the 25 MHz clock; fn runs in the interrupt. */
void board_timer0_start(uint32_t first_ticks, uint32_t period_ticks, void (*fn)(void *arg),
                        void *arg);
void board_timer0_stop(void);

/* Semihosting: the command line QEMU was given (arg=...), and the end. */
int board_cmdline(char *buf, size_t len);
__attribute__((noreturn)) void board_exit(int code);
/* Whether the caller runs in an interrupt (IPSR not zero). */
static inline int board_in_isr(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    return ipsr != 0;
}

/* Whether a fault in thread mode belongs to the runner's test (then
 * *resume is where the faulting task goes on, in thread mode). */
typedef bool (*board_fault_claim)(const char *fault, void (**resume)(void));
void board_set_fault_handler(board_fault_claim claim);

#endif
