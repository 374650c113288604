/* What the firmware needs of a board. The board's own folder
 * (core/boards/<board>/) provides the first part and its constants
 * (board_config.h: BOARD_NAME, BOARD_CPU, its memory); the Cortex-M support
 * every board shares (core/boards/cortex_m/) provides the second, built on
 * the first. docs/porting.md, "Adding a board", says what each must do. */
#ifndef RTG_BOARD_H
#define RTG_BOARD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board_config.h"

/* ==== provided by the board (core/boards/<board>/) ==== */

/* Clocks, the record UART and the counter timer, once at reset, after
 * .data and .bss are in place and before main. */
void board_init(void);
/* The core clock board_init left running (Hz), and how it was obtained. */
extern uint32_t board_core_hz;
const char *board_clock_tree(void);

/* The record UART: polled output; polled input, -1 while nothing came. */
void board_uart_write(const char *p, size_t n);
int board_uart_getc(void);

/* A hardware timer running free: a 32-bit count up, at
 * board_timer_counter_hz. The measuring clock falls back to it where the
 * core has no cycle counter that counts (core/boards/cortex_m/clock.c). */
void board_timer_counter_start(void);
/* Its count register, read by the clock directly (one load); *flip: the
 * mask its value is XORed with to count up (all ones if it counts down). */
volatile uint32_t *board_timer_counter_reg(uint32_t *flip);
extern uint32_t board_timer_counter_hz;
extern const char board_timer_counter_name[];

/* The timer of IRQ-P-LAT: its interrupt first ticks after the store that
 * starts it, then every period ticks (of board_irq_timer_hz), at NVIC
 * priority byte prio; 0 or EINVAL (out of its range). *started: the
 * measuring clock's count at that store (board_clock_stamped_store), so
 * the expiries are known on the measuring clock and not from a read made
 * before the arming's arithmetic. Its vector is
 * board_isr_irq_timer (cortex_m/isr.c), which calls board_irq_timer_ack
 * first and board_irq_timer_next after the handler (the re-arming of a
 * timer model that does not run the period itself, or nothing). */
extern uint32_t board_irq_timer_hz;
extern const char board_irq_timer_name[];
int board_irq_timer_program(uint32_t first, uint32_t period, uint8_t prio, uint64_t *started);
void board_irq_timer_halt(void);
void board_irq_timer_ack(void);
void board_irq_timer_next(void);
/* The measuring clock's count (board_clock_ticks) read as the IRQ-P-LAT
 * timer's interrupt entered, its first act (before board_isr_enter's
 * hook): valid inside that interrupt's handler. */
uint64_t board_irq_timer_entry(void);

/* ==== shared Cortex-M support (core/boards/cortex_m/) ==== */

/* memory.c: what the reset handler does before board_init (.data copied
 * from flash, .bss zeroed, the interrupt stack painted so its high-water
 * mark can be read), the vector table moved to RAM with address 0 made
 * inaccessible (a NULL dereference faults), the fault traps on. */
void board_memory_init(void);
void board_vectors_to_ram(void (*const *table)(void), size_t n);
void board_fault_traps_on(void);
/* The RAM the linker left free for the one heap, and the interrupt stack. */
void *board_heap_start(void);
size_t board_heap_bytes(void);
size_t board_msp_stack_bytes(void);
size_t board_msp_stack_unused(void);

/* clock.c: the measuring clock. The core's DWT cycle counter where it
 * exists and counts (checked here: an emulator may leave it at 0), else
 * the board's timer counter; extended to 64 bits (read at least once per
 * wrap: the tick does). board_clock_start zeroes it. */
void board_clock_start(void);
uint64_t board_clock_ticks(void);
uint64_t board_clock_ns(void);
/* A count of the clock (board_clock_ticks) in ns, as board_clock_ns says it. */
uint64_t board_clock_ticks_ns(uint64_t ticks);
uint32_t board_clock_hz(void);
/* The measuring counter's 32-bit register as read raw, and *xor what its
 * raw value is XORed with to give the low half of board_clock_ticks. */
const volatile uint32_t *board_clock_raw(uint32_t *xor);
const char *board_clock_name(void);
/* The clock's 32 bits as the hardware has them now (one load, no
 * extension): to stamp a store next to it with interrupts masked; and the
 * 64-bit count of such a read made less than one wrap ago. */
uint32_t board_clock_low(void);
uint64_t board_clock_extend(uint32_t low);
/* *reg = value, the store right after the clock's load (interrupts
 * masked): the clock's count at that store, to one instruction. */
uint64_t board_clock_stamped_store(volatile uint32_t *reg, uint32_t value);
/* *reg = the clock's counts from its load until due (its low 32 bits), in
 * units of per, stored right after that load (interrupts masked); 1 when
 * less than one unit is left: a timer re-armed to a due time. */
void board_clock_store_left(volatile uint32_t *reg, uint32_t due, uint32_t per);
bool board_clock_is_cycle_counter(void);
/* isr.c: the measuring clock's count (board_clock_ticks) read by the
 * latest OS tick, as it entered its handler; 0 before the first. */
uint64_t board_tick_instant(void);

/* isr.c: every interrupt the firmware owns enters and leaves in that one
 * file (board_isr.h names the hooks): the IRQ-P-LAT timer, calling fn(arg)
 * in the interrupt, and the OS tick (SysTick), calling board_os_tick,
 * which the OS layer provides. */
int board_irq_timer_start(uint32_t first, uint32_t period, uint8_t prio, void (*fn)(void *arg),
                          void *arg, uint64_t *started);
void board_irq_timer_stop(void);
void board_isr_irq_timer(void);
void board_os_tick(void);

/* semihost.c: the end. Under an emulator that offers semihosting (the host
 * says so on the command line) the exit code ends it; on silicon the board
 * stops, interrupts off, until the host resets it. */
void board_use_semihosting(bool on);
__attribute__((noreturn)) void board_exit(int code);

/* fault.c: whether a fault in thread mode belongs to the runner's test
 * (then *resume is where the faulting task goes on, in thread mode); any
 * other fault ends the board with a framed FAULT line. */
typedef bool (*board_fault_claim)(const char *fault, void (**resume)(void));
void board_set_fault_handler(board_fault_claim claim);
__attribute__((noreturn)) void board_fatal(const char *what);

/* Interrupts masked (PRIMASK) and restored: around a stamped store. */
static inline uint32_t board_irq_mask(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    return primask;
}
static inline void board_irq_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

/* Whether the caller runs in an interrupt (IPSR not zero). */
static inline bool board_in_isr(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    return ipsr != 0;
}

#endif
