# Netduino Plus 2 (QEMU -machine netduinoplus2; an STM32F405RG): a Cortex-M4
# with FPU at 168 MHz, FreeRTOS's ARM_CM4F port; code in 1 MB of flash at
# 0x08000000, .data copied from there at reset, 128 KB of SRAM for all
# else. The STM32F4 family's code is shared (core/boards/stm32f4/). With
# 128 KB the histograms keep 16 sub-buckets per power of two (6 %
# resolution) counted in 32 bits, 2 KB a figure instead of 30 KB, and 128
# blocks of maxima.
# Read by the firmware's build (core/boards/CMakeLists.txt).
set(BOARD_CPU_FLAGS -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
set(BOARD_FREERTOS_PORT ARM_CM4F)
set(BOARD_LINKER_SCRIPT netduinoplus2.ld)
set(BOARD_SHARED stm32f4)
set(BOARD_DEFINES RTG_HIST_SUB_BITS=4 RTG_HIST_COUNT_32 RTG_BLOCKS_MAX=128)
