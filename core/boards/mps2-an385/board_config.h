/* MPS2 AN385 as QEMU models it (-machine mps2-an385): a Cortex-M3 at
 * 25 MHz, 4 MB of SSRAM at 0 (code), 4 MB at 0x20000000 (data, stacks)
 * and 16 MB of PSRAM at 0x21000000 (the heap): an idealised board, with
 * more memory than any microcontroller. */
#ifndef RTG_BOARD_CONFIG_H
#define RTG_BOARD_CONFIG_H

#define BOARD_NAME "mps2-an385"
#define BOARD_CPU "cortex-m3"
#define BOARD_CPU_MODEL "ARM Cortex-M3 (MPS2 AN385 FPGA image)"
/* Where the code lives, and the RAM the firmware may use (data, stacks,
 * heap): the numbers the system record gives. */
#define BOARD_FLASH_ORIGIN 0x00000000u
#define BOARD_FLASH_BYTES (4u * 1024u * 1024u)
#define BOARD_FLASH_KIND "SSRAM (QEMU loads the code there)"
#define BOARD_RAM_ORIGIN 0x20000000u
#define BOARD_RAM_BYTES ((4u + 16u) * 1024u * 1024u)
#define BOARD_RAM_KIND "4 MB SSRAM at 0x20000000 and 16 MB PSRAM at 0x21000000"
/* The NVIC priority bits the core implements. */
#define BOARD_NVIC_PRIO_BITS 3
#define BOARD_UART_NAME "CMSDK UART0"

#endif
