/* MPS2 AN385: the vector table (the Cortex-M3's 16 and the board's 32
 * external interrupts, of which TIMER0's, IRQ 8, is IRQ-P-LAT's) and the
 * reset: memory as on silicon (.data from its load address, .bss zeroed),
 * the vector table to RAM behind the NULL guard, the fault traps, the
 * board, the measuring clock, the C library's constructors, main. */
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

#define N_VECTORS (16 + 32)
#define D Default_Handler

__attribute__((section(".isr_vector"), used)) static void (*const vectors[N_VECTORS])(void) = {
    (void (*)(void))(&__stack_top),
    Reset_Handler, D /* NMI */, HardFault_Handler, MemManage_Handler, BusFault_Handler,
    UsageFault_Handler, 0, 0, 0, 0, SVC_Handler, D /* DebugMon */, 0, PendSV_Handler,
    SysTick_Handler,
    /* external interrupts 0..31 */
    D, D, D, D, D, D, D, D, board_isr_irq_timer /* 8: TIMER0 */, D, D, D, D, D, D, D,
    D, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D,
};

void Reset_Handler(void)
{
    board_memory_init();
    board_vectors_to_ram(vectors, N_VECTORS);
    board_fault_traps_on();
    board_init();
    board_clock_start();
    __libc_init_array();
    main();
    board_exit(3);
}
