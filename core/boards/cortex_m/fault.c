/* Faults. A fault in thread mode that the runner claims (a test task's:
 * the OS layer's isolation registers the claim) is contained: the faulting task
 * resumes, in thread mode, at the address the runner gives, and the fault
 * is named to it.
 * Any other fault (in an interrupt, in the kernel, in the runner itself,
 * or with a broken exception frame) ends the board: a framed FAULT line
 * names it, then RESTART, then exit code 3. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board.h"

#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define CFSR_STACKING ((1u << 4) | (1u << 3) | (1u << 12) | (1u << 11)) /* (UN)STKERR */
#define EXC_RETURN_PSP (1u << 2)
#define XPSR_THUMB (1u << 24)

static board_fault_claim claim;

void board_set_fault_handler(board_fault_claim fn) { claim = fn; }

void board_fatal(const char *what)
{
    __asm__ volatile("cpsid i" ::: "memory");
    static const char frame[] = "@RTG@ FAULT ";
    board_uart_write(frame, sizeof frame - 1);
    board_uart_write(what, strlen(what));
    board_uart_write("\n@RTG@ RESTART\n", 15);
    board_exit(3);
}

/* Entered by a branch from the handlers below, so that its return is the
 * exception return (lr still holds EXC_RETURN). frame: the stacked r0-r3,
 * r12, lr, pc, xPSR of the faulting context. */
__attribute__((used)) static void fault_entry(uint32_t *frame, uint32_t exc_return,
                                              const char *what)
{
    void (*resume)(void) = NULL;
    bool thread = (exc_return & EXC_RETURN_PSP) != 0;
    if (!thread || (SCB_CFSR & CFSR_STACKING) || !claim || !claim(what, &resume) || !resume)
        board_fatal(what);
    frame[6] = (uint32_t)(uintptr_t)resume & ~1u; /* pc */
    frame[7] = XPSR_THUMB;                         /* no IT state, Thumb */
    SCB_CFSR = SCB_CFSR;                           /* write 1 to clear */
    SCB_HFSR = SCB_HFSR;
}

#define FAULT_HANDLER(name, text)                                                                  \
    __attribute__((used)) static const char name##_what[] = text;                                                      \
    __attribute__((naked)) void name(void)                                                         \
    {                                                                                              \
        __asm__ volatile("tst lr, #4\n\t"                                                          \
                         "ite eq\n\t"                                                              \
                         "mrseq r0, msp\n\t"                                                       \
                         "mrsne r0, psp\n\t"                                                       \
                         "mov r1, lr\n\t"                                                          \
                         "ldr r2, =" #name "_what\n\t"                                             \
                         "b fault_entry\n\t"                                                       \
                         ".ltorg");                                                                \
    }

void HardFault_Handler(void);
void MemManage_Handler(void);
void BusFault_Handler(void);
void UsageFault_Handler(void);
FAULT_HANDLER(HardFault_Handler, "HardFault")
FAULT_HANDLER(MemManage_Handler, "MemManage fault")
FAULT_HANDLER(BusFault_Handler, "BusFault")
FAULT_HANDLER(UsageFault_Handler, "UsageFault")

void Default_Handler(void);
void Default_Handler(void) { board_fatal("unexpected interrupt"); }
