/* ST Nucleo-F401RE: an STM32F401RE (Cortex-M4 with FPU, 84 MHz), 512 KB
 * of flash at 0x08000000 and 96 KB of SRAM at 0x20000000, and an on-board
 * ST-LINK whose virtual COM port is wired to USART2 (PA2, PA3). No QEMU
 * machine models it: it runs on the part, in a lab (docs/lab.md). */
#ifndef RTG_BOARD_CONFIG_H
#define RTG_BOARD_CONFIG_H

#define BOARD_NAME "nucleo-f401re"
#define BOARD_CPU "cortex-m4"
#define BOARD_CPU_MODEL "ARM Cortex-M4F, STM32F401RE (Nucleo-F401RE)"
#define BOARD_FLASH_ORIGIN 0x08000000u
#define BOARD_FLASH_BYTES (512u * 1024u)
#define BOARD_RAM_ORIGIN 0x20000000u
#define BOARD_RAM_BYTES (96u * 1024u)
#define BOARD_RAM_KIND "96 KB SRAM at 0x20000000"
#define BOARD_NVIC_PRIO_BITS 4
/* The part's external interrupts, as many as the vector table has
 * (core/boards/stm32f4/startup.c). */
#define BOARD_EXT_IRQS 85
#define BOARD_UART_NAME "USART2 (PA2 TX, PA3 RX: the ST-LINK's virtual COM port), 115200 8N1"

#endif
