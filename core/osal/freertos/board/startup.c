/* Vector table and reset: zero .bss, turn on the separate fault handlers
 * and the divide-by-zero trap, call main. */
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

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16 + 32])(void) = {
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

void Reset_Handler(void)
{
    memset(&__bss_start__, 0, (size_t)((char *)&__bss_end__ - (char *)&__bss_start__));
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
