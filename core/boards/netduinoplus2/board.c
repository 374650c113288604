/* Netduino Plus 2 (STM32F405RG): 168 MHz from its 25 MHz crystal (APB1 at
 * 42 MHz, its timers at 84; APB2 at 84), the records on USART1 (PA9 TX,
 * PA10 RX: QEMU's first serial port). The rest is the STM32F4 family's
 * (core/boards/stm32f4/board_parts.c). */
#include "board.h"
#include "stm32f4.h"

const struct stm32f4_board stm32f4_board = {
    .clocks = {.hse_hz = 25000000u, .pll_m = 25, .pll_n = 336, .pll_p = 2, .pll_q = 7,
               .apb1_div = 4, .apb2_div = 2, .flash_wait_states = 5},
    .usart = STM32_USART1,
    .usart_on_apb2 = true,
    .usart_enable_bit = 4,
    .tx_pin = 9,
    .rx_pin = 10,
};
