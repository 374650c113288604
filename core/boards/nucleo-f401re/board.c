/* Nucleo-F401RE (STM32F401RE): 84 MHz from HSI through the PLL (16 MHz /
 * 16 * 336 / 4; APB1 at 42 MHz, its timers at 84; APB2 at 84), the records
 * on USART2 (PA2 TX, PA3 RX), which the on-board ST-LINK carries to its
 * virtual COM port. The rest is the STM32F4 family's
 * (core/boards/stm32f4/board_parts.c). */
#include "board.h"
#include "stm32f4.h"

const struct stm32f4_board stm32f4_board = {
    .clocks = {.hse_hz = 0, .pll_m = 16, .pll_n = 336, .pll_p = 4, .pll_q = 7, .apb1_div = 2,
               .apb2_div = 1, .flash_wait_states = 2},
    .usart = STM32_USART2,
    .usart_on_apb2 = false,
    .usart_enable_bit = 17,
    .tx_pin = 2,
    .rx_pin = 3,
};
