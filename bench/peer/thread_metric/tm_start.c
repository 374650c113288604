/* The Thread-Metric firmware's start-up on an rtgauge board: the board's
 * reset (core/boards/<board>/startup.c) calls main, which sets up the heap
 * as rtgauge's firmware does and enters the peer's test (tm_main). What
 * the kernel and the board call back is here, idle: rtgauge's flight
 * recorder hooks in FreeRTOSConfig.h each test a flag that stays 0, as in
 * rtgauge's firmware while no recorder is open, so both run the same
 * kernel code; the tick hook (rtgauge's round-robin slices) does nothing.
 *
 * The peer's trap, TM_CAUSE_INTERRUPT, is SVC #0 (its tm_porting_layer.h).
 * The kernel's ARM_CM3 port starts the first task with an SVC of its own
 * (and checks its handler is in the vector table as it starts), so the
 * trap's handler takes the SVC vector of the board's vector table (in RAM)
 * once the kernel runs: it calls the test's handler (TM_PORT_TRAP) as the
 * peer's reference handler does (push {lr}; bl handler; pop {lr}; bx lr). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "FreeRTOS.h"
#include "board.h"
#include "board_isr.h"
#include "fw_os.h"
#include "rtg_fr_trace.h"
#include "task.h"
#include "tm_start.h"

void tm_main(void);
void TM_PORT_TRAP(void);
void tm_port_no_trap(void);
extern void xPortSysTickHandler(void);

int main(void)
{
    rtg_fw_os_init();
    board_use_semihosting(TM_PORT_INTERVALS > 0); /* the board ends QEMU */
    tm_main();
    board_fatal("tm_main returned");
}

#define STR2(x) #x
#define STR(x) STR2(x)
__attribute__((naked)) static void svc_trap(void)
{
    __asm__ volatile("push {lr}\n"
                     "bl " STR(TM_PORT_TRAP) "\n"
                     "pop {pc}\n");
}

void tm_port_no_trap(void) { board_fatal("SVC trap in a test without an interrupt handler"); }

/* Once the kernel runs: the trap's handler in the SVC vector, at the
 * highest priority that may call FreeRTOS's FromISR functions, as a device
 * interrupt serviced through the kernel has. */
#define VTOR (*(void (***)(void))0xE000ED08u)
#define SHPR2 (*(volatile uint32_t *)0xE000ED1Cu)
#define SVC_VECTOR 11
void tm_port_thread_started(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    VTOR[SVC_VECTOR] = svc_trap;
    SHPR2 = (SHPR2 & 0x00FFFFFFu) | ((uint32_t)configMAX_SYSCALL_INTERRUPT_PRIORITY << 24);
    __asm__ volatile("dsb\nisb" ::: "memory");
}

/* rtgauge's flight recorder, never opened here (ev NULL: not recording). */
struct rtg_fr_w rtg_fr_w;
void rtg_fr_tr_created(uint32_t number, const char *name) { (void)number, (void)name; }
volatile unsigned char board_isr_tracing;
void board_isr_traced(enum board_isr which, bool entry) { (void)which, (void)entry; }

void board_os_tick(void) { xPortSysTickHandler(); }
void vApplicationTickHook(void) {}
void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task, (void)name;
    board_fatal("task stack overflow");
}
void rtg_fr_assert_failed(const char *file, int line)
{
    static char what[160];
    snprintf(what, sizeof what, "FreeRTOS assertion failed: %s:%d", file, line);
    board_fatal(what);
}
