# ST Nucleo-F401RE (an STM32F401RE): a Cortex-M4 with FPU at 84 MHz, FreeRTOS's
# ARM_CM4F port; code in 512 KB of flash at 0x08000000, .data copied from
# there at reset, 96 KB of SRAM for all else. The STM32F4 family's code is
# shared (core/boards/stm32f4/). Built by make firmware; no emulator models
# the part, so it runs only on the board itself, flashed through its
# ST-LINK in a labgrid lab (docs/lab.md). Read by core/boards/CMakeLists.txt.
set(BOARD_CPU_FLAGS -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
set(BOARD_FREERTOS_PORT ARM_CM4F)
set(BOARD_LINKER_SCRIPT nucleo-f401re.ld)
set(BOARD_SHARED stm32f4)
set(BOARD_DEFINES RTG_HIST_SUB_BITS=4 RTG_HIST_COUNT_32 RTG_BLOCKS_MAX=128)
