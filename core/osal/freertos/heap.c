/* The one heap: FreeRTOS's heap_5 over the RAM the board's linker script
 * left free (board_heap_start, board_heap_bytes: the 16 MB PSRAM on the
 * MPS2 board, everything between .bss and the interrupt stack on a
 * microcontroller). The C library's malloc family is pvPortMalloc /
 * vPortFree (with its own size header, for realloc), so the tests'
 * allocations (MEM-P-ALC) measure the RTOS allocator, and tasks, queues and
 * the tests share one budget, as firmware on the part would. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board.h"
#include "fr_internal.h"
#include "fw_os.h"

static size_t heap_total;

void rtg_fw_os_init(void)
{
    static HeapRegion_t regions[2];
    regions[0].pucStartAddress = board_heap_start();
    regions[0].xSizeInBytes = board_heap_bytes();
    vPortDefineHeapRegions(regions);
    heap_total = xPortGetFreeHeapSize();
}

size_t rtg_fr_heap_total(void) { return heap_total; }

#define HEAD 8u /* the size, in a header that keeps the heap's 8-byte alignment */
#define BLOCK_OVERHEAD (HEAD + 8u) /* ours and heap_5's block header */

int rtg_mem_available(size_t *free_bytes, size_t *largest_block)
{
    HeapStats_t st;
    vPortGetHeapStats(&st);
    size_t largest = st.xSizeOfLargestFreeBlockInBytes;
    *free_bytes = st.xAvailableHeapSpaceInBytes;
    *largest_block = largest > BLOCK_OVERHEAD ? largest - BLOCK_OVERHEAD : 0;
    return 0;
}

void *malloc(size_t n)
{
    uint8_t *p = n > SIZE_MAX - HEAD ? NULL : pvPortMalloc(n + HEAD);
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(p, &n, sizeof n);
    return p + HEAD;
}

void free(void *p)
{
    if (p)
        vPortFree((uint8_t *)p - HEAD);
}

void *calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *realloc(void *old, size_t n)
{
    if (!old)
        return malloc(n);
    size_t had;
    memcpy(&had, (uint8_t *)old - HEAD, sizeof had);
    void *p = malloc(n);
    if (p) {
        memcpy(p, old, had < n ? had : n);
        free(old);
    }
    return p;
}

/* newlib's own calls (printf's number conversion, strdup) go through these. */
struct _reent;
void *_malloc_r(struct _reent *r, size_t n);
void _free_r(struct _reent *r, void *p);
void *_calloc_r(struct _reent *r, size_t n, size_t size);
void *_realloc_r(struct _reent *r, void *p, size_t n);
void *_malloc_r(struct _reent *r, size_t n) { (void)r; return malloc(n); }
void _free_r(struct _reent *r, void *p) { (void)r; free(p); }
void *_calloc_r(struct _reent *r, size_t n, size_t size) { (void)r; return calloc(n, size); }
void *_realloc_r(struct _reent *r, void *p, size_t n) { (void)r; return realloc(p, n); }
