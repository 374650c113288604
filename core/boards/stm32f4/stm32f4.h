/* The STM32F4 peripherals the boards of this family use: the reset and
 * clock control, flash wait states, GPIO alternate functions, the USARTs
 * and the general-purpose timers TIM2..TIM5 (stm32f4.c). A board names
 * its crystal, PLL, record USART and timers (its board.c). */
#ifndef RTG_STM32F4_H
#define RTG_STM32F4_H
#include <stdbool.h>
#include <stdint.h>

struct stm32_usart {
    volatile uint32_t sr, dr, brr, cr1, cr2, cr3, gtpr;
};
struct stm32_tim {
    volatile uint32_t cr1, cr2, smcr, dier, sr, egr, ccmr1, ccmr2, ccer, cnt, psc, arr;
};
struct stm32_gpio {
    volatile uint32_t moder, otyper, ospeedr, pupdr, idr, odr, bsrr, lckr, afr[2];
};

#define STM32_USART1 ((struct stm32_usart *)0x40011000u)
#define STM32_USART2 ((struct stm32_usart *)0x40004400u)
#define STM32_TIM2 ((struct stm32_tim *)0x40000000u)
#define STM32_TIM5 ((struct stm32_tim *)0x40000C00u)
#define STM32_GPIOA ((struct stm32_gpio *)0x40020000u)
#define STM32_TIM2_IRQ 28

/* The clock tree a board asks for: the PLL from its crystal (hse_hz, or
 * from HSI's 16 MHz when hse_hz is 0), and the APB dividers. */
struct stm32f4_clocks {
    uint32_t hse_hz;
    bool hse_bypass; /* a clock signal (an ST-LINK's), not a crystal */
    uint32_t pll_m, pll_n, pll_p, pll_q;
    uint32_t apb1_div, apb2_div; /* 1, 2, 4, 8 or 16 */
    uint32_t flash_wait_states;
};

/* What an STM32F4 board says of itself (its board.c defines stm32f4_board);
 * the rest of the board's part is shared (board_parts.c). */
struct stm32f4_board {
    struct stm32f4_clocks clocks;
    struct stm32_usart *usart; /* the record USART, 115200 8N1 */
    bool usart_on_apb2;        /* its bus, and its enable bit there */
    unsigned usart_enable_bit;
    unsigned tx_pin, rx_pin; /* on GPIOA, alternate function 7 */
};
extern const struct stm32f4_board stm32f4_board;

/* Sets the tree up, each wait bounded. Returns the core clock reached and
 * says how in *how: the PLL as asked; HSI alone when the crystal did not
 * start; or, when the RCC reads as all zeros (no part resets it so: an
 * emulator that does not model it), the clock as asked, untouched. */
uint32_t stm32f4_clocks_setup(const struct stm32f4_clocks *c, const char **how);
/* Whether stm32f4_clocks_setup found no RCC: an emulator, whose other
 * peripherals are its models too (the boards work around their quirks). */
bool stm32f4_emulated(void);
uint32_t stm32f4_apb1_hz(void);
uint32_t stm32f4_apb2_hz(void);

/* GPIOA pins as an alternate function (af) with their clock on. */
void stm32f4_gpioa_af(unsigned pin, unsigned af);
/* A USART at baud, 8N1, transmitter and receiver on; pclk its bus clock. */
void stm32f4_usart_init(struct stm32_usart *u, uint32_t pclk, uint32_t baud);
void stm32f4_usart_write(struct stm32_usart *u, const char *p, unsigned long n);
int stm32f4_usart_getc(struct stm32_usart *u);
/* The timers' clock (APB1's timers run at twice APB1 when it is divided),
 * measured against the core clock over one SysTick period of 2^24 core
 * cycles and rounded to 1 kHz: the figure is then right on the part and
 * under an emulator that clocks its timers otherwise. */
uint32_t stm32f4_measure_timer_hz(struct stm32_tim *t, uint32_t core_hz);

#endif
