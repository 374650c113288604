/* The measuring clock: the core's DWT cycle counter where the core has one
 * and it counts, else the board's timer counter. Whether the DWT counts is
 * checked, not assumed: QEMU models no DWT and leaves CYCCNT at 0. Either
 * source is a 32-bit count up, extended here to 64 bits: any read that
 * sees a smaller value than the last carries one (the tick reads it every
 * millisecond, far more often than the fastest wrap, 25 s at 168 MHz). */
#include "board.h"

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CTRL_NOCYCCNT (1u << 25)
#define DWT_CTRL_CYCCNTENA (1u << 0)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

static bool use_dwt;
static uint32_t hz;
/* The source's register and the mask that makes its value a count up, and
 * the 64-bit extension's state: together, so a read loads one address. */
static struct {
    volatile uint32_t *reg;
    uint32_t flip;
    uint32_t last_low, high;
} clk;

static bool dwt_counts(void)
{
    DEMCR |= DEMCR_TRCENA;
    if (DWT_CTRL & DWT_CTRL_NOCYCCNT)
        return false; /* the core says it has no cycle counter */
    DWT_CYCCNT = 0;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    uint32_t before = DWT_CYCCNT;
    for (volatile int i = 0; i < 64; i++)
        ;
    return DWT_CYCCNT != before;
}

/* One load is the instant of every read: no call, no test of the
 * source. Its label (board_clock_read_<n> in the symbol table) lets an
 * instruction trace find that instant. */
static inline __attribute__((always_inline)) uint32_t read_low(void)
{
    uint32_t v;
    __asm__ volatile("board_clock_read_%=:\n\tldr %0, [%1]" : "=r"(v) : "r"(clk.reg) : "memory");
    return v ^ clk.flip;
}

void board_clock_start(void)
{
    use_dwt = dwt_counts();
    if (use_dwt) {
        hz = board_core_hz;
        DWT_CYCCNT = 0;
        clk.reg = &DWT_CYCCNT;
        clk.flip = 0;
    } else {
        hz = board_timer_counter_hz;
        board_timer_counter_start();
        clk.reg = board_timer_counter_reg(&clk.flip);
    }
    clk.last_low = read_low();
    clk.high = 0;
}

uint64_t board_clock_ticks(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    uint32_t now = read_low();
    if (now < clk.last_low)
        clk.high++;
    clk.last_low = now;
    uint64_t t = ((uint64_t)clk.high << 32) | now;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return t;
}

uint32_t board_clock_low(void) { return read_low(); }

/* The clock's load and the store, adjacent instructions with interrupts
 * masked: the count is the store's instant to one instruction. */
uint64_t board_clock_stamped_store(volatile uint32_t *reg, uint32_t value)
{
    uint32_t primask = board_irq_mask(), raw;
    __asm__ volatile("board_clock_read_%=:\n\tldr %0, [%1]\n\tstr %2, [%3]"
                     : "=&r"(raw)
                     : "r"(clk.reg), "r"(value), "r"(reg)
                     : "memory");
    board_irq_restore(primask);
    return board_clock_extend(raw ^ clk.flip);
}

/* From the clock's load to the store: an XOR, a subtraction and a
 * division, so a timer re-armed this way fires that late (4 instructions). */
void board_clock_store_left(volatile uint32_t *reg, uint32_t due, uint32_t per)
{
    uint32_t primask = board_irq_mask(), now, left;
    __asm__ volatile("board_clock_read_%=:\n\tldr %0, [%2]\n\teor %0, %0, %3\n\t"
                     "sub %1, %4, %0\n\tudiv %1, %1, %5\n\tstr %1, [%6]"
                     : "=&r"(now), "=&r"(left)
                     : "r"(clk.reg), "r"(clk.flip), "r"(due), "r"(per), "r"(reg)
                     : "memory");
    if ((int32_t)(due - now) < (int32_t)per)
        *reg = 1u; /* due, or past: at once */
    board_irq_restore(primask);
}

/* low is at most one wrap behind the count now: the difference of the
 * low halves is the whole difference. */
uint64_t board_clock_extend(uint32_t low)
{
    uint64_t now = board_clock_ticks();
    return now - (uint32_t)((uint32_t)now - low);
}

/* Exact for any count: whole seconds, then the rest (below 2^32 ticks,
 * so its product with 1e9 stays below 2^62). */
uint64_t board_clock_ticks_ns(uint64_t t)
{
    return t / hz * 1000000000u + t % hz * 1000000000u / hz;
}

uint64_t board_clock_ns(void) { return board_clock_ticks_ns(board_clock_ticks()); }

uint32_t board_clock_hz(void) { return hz; }

const volatile uint32_t *board_clock_raw(uint32_t *xor)
{
    *xor = clk.flip;
    return clk.reg;
}

bool board_clock_is_cycle_counter(void) { return use_dwt; }

const char *board_clock_name(void) { return use_dwt ? "DWT CYCCNT" : board_timer_counter_name; }
