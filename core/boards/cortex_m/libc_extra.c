/* What the C library of the board lacks and the probe uses: fnmatch (the
 * test globs of --tests) and the 64-bit atomics that the Cortex-M3 has no
 * instructions for (made atomic by masking interrupts: one CPU). */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>

/* '*' and '?' and literal characters: what test ids and globs use. */
int fnmatch(const char *pattern, const char *s, int flags)
{
    (void)flags;
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*pattern == '?' || *pattern == *s) {
            pattern++;
            s++;
        } else if (*pattern == '*') {
            star = pattern++;
            resume = s;
        } else if (star) {
            pattern = star + 1;
            s = ++resume;
        } else {
            return FNM_NOMATCH;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern ? FNM_NOMATCH : 0;
}

static inline uint32_t mask(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    return primask;
}

static inline void unmask(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

uint64_t __atomic_load_8(const volatile void *p, int order);
void __atomic_store_8(volatile void *p, uint64_t v, int order);
uint64_t __atomic_exchange_8(volatile void *p, uint64_t v, int order);
uint64_t __atomic_fetch_add_8(volatile void *p, uint64_t v, int order);
uint64_t __atomic_fetch_sub_8(volatile void *p, uint64_t v, int order);
bool __atomic_compare_exchange_8(volatile void *p, void *expected, uint64_t desired, bool weak,
                                 int success, int failure);

uint64_t __atomic_load_8(const volatile void *p, int order)
{
    (void)order;
    uint32_t m = mask();
    uint64_t v = *(const volatile uint64_t *)p;
    unmask(m);
    return v;
}

void __atomic_store_8(volatile void *p, uint64_t v, int order)
{
    (void)order;
    uint32_t m = mask();
    *(volatile uint64_t *)p = v;
    unmask(m);
}

/* Read, replace with expr (of old and v), return old: one masked section. */
#define RMW_8(name, expr)                                                                          \
    uint64_t name(volatile void *p, uint64_t v, int order)                                         \
    {                                                                                              \
        (void)order;                                                                               \
        uint32_t m = mask();                                                                       \
        uint64_t old = *(volatile uint64_t *)p;                                                    \
        *(volatile uint64_t *)p = (expr);                                                          \
        unmask(m);                                                                                 \
        return old;                                                                                \
    }
RMW_8(__atomic_exchange_8, v)
RMW_8(__atomic_fetch_add_8, old + v)
RMW_8(__atomic_fetch_sub_8, old - v)

bool __atomic_compare_exchange_8(volatile void *p, void *expected, uint64_t desired, bool weak,
                                 int success, int failure)
{
    (void)weak, (void)success, (void)failure;
    uint32_t m = mask();
    uint64_t cur = *(volatile uint64_t *)p;
    bool ok = cur == *(uint64_t *)expected;
    if (ok)
        *(volatile uint64_t *)p = desired;
    else
        *(uint64_t *)expected = cur;
    unmask(m);
    return ok;
}
