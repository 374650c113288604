/* Vector table and reset: zero .bss, move the vector table off address 0
 * and make the first 32 bytes inaccessible (the MPU), so that a NULL
 * dereference faults as it would on Linux; turn on the separate fault
 * handlers and the divide-by-zero trap; call main. */
#include <stdint.h>
#include <string.h>

extern uint32_t __bss_start__, __bss_end__, __stack_top;
extern int main(void);
extern void __libc_init_array(void);

void Reset_Handler(void);
void Default_Handler(void);
void HardFault_Handler(void);
void MemManage_Handler(void);
void BusFault_Handler(void);
void UsageFault_Handler(void);
void SVC_Handler(void);

void PendSV_Handler(void);
void SysTick_Handler(void);
void TIMER0_Handler(void);

#define SCB_SHCSR (*(volatile uint32_t *)0xE000ED24u)
#define SCB_CCR (*(volatile uint32_t *)0xE000ED14u)
#define SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)
#define MPU_CTRL (*(volatile uint32_t *)0xE000ED94u)
#define MPU_RNR (*(volatile uint32_t *)0xE000ED98u)
#define MPU_RBAR (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU_RASR (*(volatile uint32_t *)0xE000EDA0u)
#define N_VECTORS (16 + 32)

__attribute__((section(".isr_vector"), used)) static void (*const vectors[N_VECTORS])(void) = {
    (void (*)(void))(&__stack_top),
    Reset_Handler,
    Default_Handler, /* NMI */
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    0, 0, 0, 0,
    SVC_Handler,
    Default_Handler, /* DebugMon */
    0,
    PendSV_Handler,
    SysTick_Handler,
    /* external interrupts 0..31: only TIMER0 (IRQ 8) is used */
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    TIMER0_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
};

/* VTOR needs the table aligned to its size rounded up to a power of two. */
static __attribute__((aligned(256))) void (*ram_vectors[N_VECTORS])(void);

static void guard_null_page(void)
{
    memcpy(ram_vectors, vectors, sizeof ram_vectors);
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    MPU_RNR = 0;
    MPU_RBAR = 0x00000000u;
    /* enable, 32 bytes (SIZE 4), no access (AP 0), never execute (XN) */
    MPU_RASR = (1u << 0) | (4u << 1) | (1u << 28);
    MPU_CTRL = (1u << 0) | (1u << 2); /* on, default map for everything else */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

void Reset_Handler(void)
{
    memset(&__bss_start__, 0, (size_t)((char *)&__bss_end__ - (char *)&__bss_start__));
    guard_null_page();
    SCB_SHCSR |= (1u << 16) | (1u << 17) | (1u << 18); /* MemManage, BusFault, UsageFault */
    SCB_CCR |= 1u << 4;                                /* DIV_0_TRP */
    __libc_init_array();
    main();
    for (;;)
        ;
}

/* Called by __libc_init_array; the toolchain's crti/crtn are not linked. */
void _init(void) {}
void _fini(void) {}
