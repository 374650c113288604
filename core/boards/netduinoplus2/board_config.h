/* Netduino Plus 2: an STM32F405RG (Cortex-M4 with FPU, 168 MHz from a
 * 25 MHz crystal), 1 MB of flash at 0x08000000 and 128 KB of SRAM at
 * 0x20000000 (QEMU's -machine netduinoplus2 maps 192 KB there; the
 * firmware takes the part's 128 KB, so what fits here fits on silicon).
 * The part's 64 KB of core-coupled memory is left unused. */
#ifndef RTG_BOARD_CONFIG_H
#define RTG_BOARD_CONFIG_H

#define BOARD_NAME "netduinoplus2"
#define BOARD_CPU "cortex-m4"
#define BOARD_CPU_MODEL "ARM Cortex-M4F, STM32F405RG (Netduino Plus 2)"
#define BOARD_FLASH_ORIGIN 0x08000000u
#define BOARD_FLASH_BYTES (1024u * 1024u)
#define BOARD_RAM_ORIGIN 0x20000000u
#define BOARD_RAM_BYTES (128u * 1024u)
#define BOARD_RAM_KIND "128 KB SRAM at 0x20000000 (the part's; its 64 KB CCM unused)"
#define BOARD_NVIC_PRIO_BITS 4
/* The part's external interrupts, as many as the vector table has
 * (core/boards/stm32f4/startup.c). */
#define BOARD_EXT_IRQS 82
#define BOARD_UART_NAME "USART1 (PA9 TX, PA10 RX), 115200 8N1"

#endif
