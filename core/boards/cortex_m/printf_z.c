/* Debian's newlib is built without C99 formats: "%zu" prints "zu" and
 * shifts every later argument. size_t is unsigned int on this target, so
 * the 'z' length modifier can be dropped; snprintf and vsnprintf are
 * wrapped (-Wl,--wrap) to do that before newlib sees the format. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

_Static_assert(sizeof(size_t) == sizeof(unsigned), "'z' is dropped only where size_t is int-sized");

int __real_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int __wrap_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int __wrap_snprintf(char *buf, size_t n, const char *fmt, ...);

int __wrap_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
    char f[512];
    size_t o = 0;
    bool in_spec = false;
    for (const char *p = fmt; *p; p++) {
        if (o + 1 >= sizeof f)
            return __real_vsnprintf(buf, n, fmt, ap); /* too long to rewrite: as it is */
        if (*p == '%')
            in_spec = !in_spec;
        else if (in_spec && *p == 'z')
            continue;
        else if (in_spec && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) && *p != 'l' &&
                 *p != 'h' && *p != 'j' && *p != 't' && *p != 'L')
            in_spec = false;
        f[o++] = *p;
    }
    f[o] = '\0';
    return __real_vsnprintf(buf, n, f, ap);
}

int __wrap_snprintf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = __wrap_vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}
