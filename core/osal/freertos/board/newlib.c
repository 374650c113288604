/* What newlib needs from the board: memory, output to UART0 and an exit
 * through semihosting. There is one heap, FreeRTOS's heap_4 over the 16 MB
 * PSRAM: the C library's malloc family is pvPortMalloc / vPortFree (with
 * its own size header, for realloc), so the tests' allocations (MEM-P-ALC)
 * measure the RTOS allocator, and tasks, queues and the tests share it. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "FreeRTOS.h"
#include "board.h"
#include "task.h"

/* heap_4's arena (configAPPLICATION_ALLOCATED_HEAP), placed in PSRAM. */
__attribute__((section(".psram"), aligned(8))) uint8_t ucHeap[configTOTAL_HEAP_SIZE];

/* Nothing grows a heap by sbrk here: a caller that tries is told so. */
void *_sbrk(ptrdiff_t incr)
{
    (void)incr;
    errno = ENOMEM;
    return (void *)-1;
}

#define HEAD 8u /* the size, in a header that keeps heap_4's 8-byte alignment */

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
void *_malloc_r(struct _reent *r, size_t n) { (void)r; return malloc(n); }
void _free_r(struct _reent *r, void *p) { (void)r; free(p); }
void *_calloc_r(struct _reent *r, size_t n, size_t size) { (void)r; return calloc(n, size); }
void *_realloc_r(struct _reent *r, void *p, size_t n) { (void)r; return realloc(p, n); }

/* stdout and stderr are UART0, every line framed as the host expects. */
int _write(int fd, const char *p, int n)
{
    static bool line_start = true;
    static const char frame[] = "@RTG@ ";
    (void)fd;
    for (int i = 0; i < n; i++) {
        if (line_start)
            board_uart_write(frame, sizeof frame - 1);
        board_uart_write(&p[i], 1);
        line_start = p[i] == '\n';
    }
    return n;
}

void _exit(int code) { board_exit(code); }
int _close(int fd) { (void)fd; return -1; }
int _read(int fd, char *p, int n) { (void)fd, (void)p, (void)n; return 0; }
int _lseek(int fd, int off, int whence) { (void)fd, (void)off, (void)whence; return 0; }
int _fstat(int fd, struct stat *st) { (void)fd; st->st_mode = S_IFCHR; return 0; }
int _isatty(int fd) { (void)fd; return 1; }
int _getpid(void) { return 1; }
int _kill(int pid, int sig) { (void)pid, (void)sig; errno = EINVAL; return -1; }
