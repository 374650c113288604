/* Nucleo-F401RE (STM32F401RE): the vector table (the Cortex-M4's 16 and
 * the part's 85 external interrupts, of which TIM2's, IRQ 28, is
 * IRQ-P-LAT's) and the reset: memory as on silicon (.data copied from
 * flash, .bss zeroed), the vector table to RAM behind the NULL guard (the
 * flash is mapped at 0 too), the FPU on (the firmware is built for it),
 * the fault traps, the board, the measuring clock, the C library's
 * constructors, main. */
#include "board.h"

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

#define N_VECTORS (16 + 85)
#define D Default_Handler
#define D8 D, D, D, D, D, D, D, D

__attribute__((section(".isr_vector"), used)) static void (*const vectors[N_VECTORS])(void) = {
    (void (*)(void))(&__stack_top),
    Reset_Handler, D /* NMI */, HardFault_Handler, MemManage_Handler, BusFault_Handler,
    UsageFault_Handler, 0, 0, 0, 0, SVC_Handler, D /* DebugMon */, 0, PendSV_Handler,
    SysTick_Handler,
    /* external interrupts 0..84 */
    D8, D8, D8, /* 0..23 */
    D, D, D, D, board_isr_irq_timer /* 28: TIM2 */, D, D, D, /* 24..31 */
    D8, D8, D8, D8, D8, D8, /* 32..79 */
    D, D, D, D, D, /* 80..84 */
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
