/* Memory at reset, as on silicon: .data copied from its load address in
 * flash to RAM, .bss zeroed, the interrupt stack (MSP) painted so that its
 * high-water mark can be read at the end. Then the vector table moves to
 * RAM and the MPU makes the first 32 bytes inaccessible, so that a NULL
 * dereference faults as it does on Linux (flash is mapped at 0 on many
 * parts). The symbols come from the board's linker script. */
#include <string.h>

#include "board.h"

extern uint32_t __data_load__, __data_start__, __data_end__;
extern uint32_t __bss_start__, __bss_end__;
extern uint32_t __heap_start__, __heap_end__;
extern uint32_t __stack_limit__, __stack_top;

#define SCB_SHCSR (*(volatile uint32_t *)0xE000ED24u)
#define SCB_CCR (*(volatile uint32_t *)0xE000ED14u)
#define SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)
#define MPU_CTRL (*(volatile uint32_t *)0xE000ED94u)
#define MPU_RNR (*(volatile uint32_t *)0xE000ED98u)
#define MPU_RBAR (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU_RASR (*(volatile uint32_t *)0xE000EDA0u)
#define PAINT 0xA5A5A5A5u
#define MAX_VECTORS 128u

void board_memory_init(void)
{
    size_t data = (size_t)((char *)&__data_end__ - (char *)&__data_start__);
    if (&__data_load__ != &__data_start__)
        memcpy(&__data_start__, &__data_load__, data);
    memset(&__bss_start__, 0, (size_t)((char *)&__bss_end__ - (char *)&__bss_start__));
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = &__stack_limit__; p < sp - 32; p++) /* below this frame, with room */
        *p = PAINT;
}

/* VTOR needs the table aligned to its size rounded up to a power of two. */
static __attribute__((aligned(4 * MAX_VECTORS))) void (*ram_vectors[MAX_VECTORS])(void);

void board_vectors_to_ram(void (*const *table)(void), size_t n)
{
    if (n > MAX_VECTORS)
        board_fatal("vector table larger than the RAM copy");
    memcpy(ram_vectors, table, n * sizeof *table);
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    MPU_RNR = 0;
    MPU_RBAR = 0x00000000u;
    /* enable, 32 bytes (SIZE 4), no access (AP 0), never execute (XN) */
    MPU_RASR = (1u << 0) | (4u << 1) | (1u << 28);
    MPU_CTRL = (1u << 0) | (1u << 2); /* on, default map for everything else */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

void board_fault_traps_on(void)
{
    SCB_SHCSR |= (1u << 16) | (1u << 17) | (1u << 18); /* MemManage, BusFault, UsageFault */
    SCB_CCR |= 1u << 4;                                /* DIV_0_TRP */
}

void *board_heap_start(void) { return &__heap_start__; }

size_t board_heap_bytes(void)
{
    return (size_t)((char *)&__heap_end__ - (char *)&__heap_start__);
}

size_t board_msp_stack_bytes(void)
{
    return (size_t)((char *)&__stack_top - (char *)&__stack_limit__);
}

size_t board_msp_stack_unused(void)
{
    size_t n = 0;
    for (const uint32_t *p = &__stack_limit__; p < &__stack_top && *p == PAINT; p++)
        n += sizeof *p;
    return n;
}

/* Called by __libc_init_array; the toolchain's crti/crtn are not linked. */
void _init(void);
void _fini(void);
void _init(void) {}
void _fini(void) {}
