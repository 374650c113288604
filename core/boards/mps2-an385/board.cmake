# MPS2 AN385 (QEMU -machine mps2-an385): a Cortex-M3 at 25 MHz with
# FreeRTOS's ARM_CM3 port; code in 4 MB of SSRAM at 0, the heap in 16 MB of
# PSRAM. Read by the firmware's build (core/boards/CMakeLists.txt).
set(BOARD_CPU_FLAGS -mcpu=cortex-m3)
set(BOARD_FREERTOS_PORT ARM_CM3)
set(BOARD_LINKER_SCRIPT mps2-an385.ld)
set(BOARD_DEFINES "")
