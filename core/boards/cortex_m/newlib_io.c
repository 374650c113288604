/* What newlib needs from the board: output to the record UART, every line
 * framed as the host expects, and the end (board_exit). The malloc family
 * is the OS layer's (core/osal/freertos/heap.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "board.h"

/* The heap is the OS layer's (its malloc family); nothing grows one by
 * sbrk here: a caller that tries is told so. */
void *_sbrk(ptrdiff_t incr)
{
    (void)incr;
    errno = ENOMEM;
    return (void *)-1;
}

/* stdout and stderr are the record UART, every line framed as the host expects. */
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
