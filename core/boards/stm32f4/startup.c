/* The STM32F4 boards' vector table and reset, one for the family: the
 * Cortex-M4's 16 vectors and the part's external interrupts, as many as
 * its board_config.h says (BOARD_EXT_IRQS: 82 on the F405, 85 on the
 * F401), of which TIM2's, IRQ 28, is IRQ-P-LAT's. The reset: memory as on
 * silicon (.data copied from flash, .bss zeroed), the vector table to RAM
 * behind the NULL guard (the flash is mapped at 0 too), the FPU on (the
 * firmware is built for it), the fault traps, the board, the measuring
 * clock, the C library's constructors, main. */
#include "board.h"
#include "stm32f4.h"

#ifndef BOARD_EXT_IRQS
#error "board_config.h: BOARD_EXT_IRQS, the part's external interrupts, is not set"
#endif

extern uint32_t __stack_top;
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

#define N_VECTORS (16 + BOARD_EXT_IRQS)
#define D Default_Handler
#define EXT(irq) (16 + (irq)) /* an external interrupt's slot */

/* The external interrupts' slots are filled by ranges (GCC's designated
 * ranges: the firmware is GCC's C, as its attributes and asm are), so the
 * count alone sizes the table. */
__attribute__((section(".isr_vector"), used)) static void (*const vectors[N_VECTORS])(void) = {
    (void (*)(void))(&__stack_top),
    Reset_Handler, D /* NMI */, HardFault_Handler, MemManage_Handler, BusFault_Handler,
    UsageFault_Handler, 0, 0, 0, 0, SVC_Handler, D /* DebugMon */, 0, PendSV_Handler,
    SysTick_Handler,
    [EXT(0) ... EXT(STM32_TIM2_IRQ) - 1] = D,
    [EXT(STM32_TIM2_IRQ)] = board_isr_irq_timer,
    [EXT(STM32_TIM2_IRQ) + 1 ... N_VECTORS - 1] = D,
};

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)

void Reset_Handler(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10, CP11: the FPU, full access */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    board_memory_init();
    board_vectors_to_ram(vectors, N_VECTORS);
    board_fault_traps_on();
    board_init();
    board_clock_start();
    __libc_init_array();
    main();
    board_exit(3);
}
