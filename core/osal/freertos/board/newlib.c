/* What newlib needs from the board: a heap (the 16 MB PSRAM), a lock around malloc (the scheduler is held), output to
 * UART0 and an exit through semihosting. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "FreeRTOS.h"
#include "board.h"
#include "task.h"

extern char __heap_start, __heap_limit;
static char *brk_now = &__heap_start;

void *_sbrk(ptrdiff_t incr)
{
    if (incr < 0 ? brk_now + incr < &__heap_start : brk_now + incr > &__heap_limit) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = brk_now;
    brk_now += incr;
    return old;
}

size_t board_libc_heap_bytes(void) { return (size_t)(&__heap_limit - &__heap_start); }

struct _reent;
void __malloc_lock(struct _reent *r)
{
    (void)r;
    if (xTaskGetSchedulerState() != taskSCHEDULER_NOT_STARTED)
        vTaskSuspendAll();
}

void __malloc_unlock(struct _reent *r)
{
    (void)r;
    if (xTaskGetSchedulerState() != taskSCHEDULER_NOT_STARTED)
        (void)xTaskResumeAll();
}

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
